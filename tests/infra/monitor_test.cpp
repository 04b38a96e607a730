#include <catch2/catch.hpp>

#include "infra/monitor.hpp"
#include "infra/sim_driver.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace stepwise::infra;
using namespace std::chrono_literals;
using test::harness;

namespace {

std::shared_ptr<virtual_clock> new_clock() {
  return std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
}

monitor_options paced(duration deadline = std::chrono::hours(1)) {
  monitor_options o;
  o.initial_backoff = 1s;
  o.max_backoff = 4s;
  o.multiplier = 2.0;
  o.deadline = deadline;
  return o;
}

registry watching(std::shared_ptr<driver> drv, monitor_options opts = paced()) {
  registry reg;
  REQUIRE(reg.add(workflow("watch", 1)
                    .step(10, make_monitor_step("monitor", std::move(drv), opts))
                    .secret("/deployment_location/properties")));
  return reg;
}

boost::json::object location_json(std::string name = "dc1") {
  return {{"name", std::move(name)}, {"type", "sim"},
          {"properties", {{"password", "hunter2"}}}};
}

/// Starts a create on the sim and returns the monitor's input for it.
boost::json::object create(sim_driver& drv, std::string tpl) {
  create_request req;
  req.template_text = std::move(tpl);
  req.system_properties["resourceName"] = "vm1";
  req.location.name = "dc1";
  auto res = drv.create(req);
  REQUIRE(std::holds_alternative<accepted>(res));
  auto& acc = std::get<accepted>(res);
  return {{"infrastructure_id", acc.infrastructure_id},
          {"request_id", acc.request_id},
          {"deployment_location", location_json()},
          {"kind", "create"}};
}

/// Waits for the retry after attempt `attempt` and returns its delay.
duration await_retry(harness& h, const std::string& id, int32_t attempt) {
  REQUIRE(h.await([&](const event& e) {
    return e.operation_id == id && e.type == event_type::step_retry_scheduled
           && e.attempt == attempt;
  }));
  auto op = h.eng.get(id);
  REQUIRE(op);
  REQUIRE(op->steps[0].next_attempt_at);
  return *op->steps[0].next_attempt_at - h.clk->now();
}

std::vector<event> completions(harness& h, const std::string& id) {
  std::vector<event> out;
  for (auto& e : h.seen)
    if (e.operation_id == id && e.type == event_type::infrastructure_task_completed)
      out.push_back(e);
  return out;
}

} // namespace

TEST_CASE("monitor: IN_PROGRESS polls with growing backoff, COMPLETE reports once",
          "[infra][monitor]") {
  auto clk = new_clock();
  auto drv = std::make_shared<sim_driver>(sim_config{}, clk);
  harness h{watching(drv), nullptr, {}, clk};
  auto input = create(*drv, "outputs.ip: 10.0.0.7\nlatency_ms: 12000");
  auto id = h.start("watch", input);
  // Polls at 0, 1, 3, 7, 11 s find it in progress; the one at 15 s does not.
  std::vector<duration> delays;
  for (int32_t i = 1; i <= 5; ++i) {
    delays.push_back(await_retry(h, id, i));
    h.clk->advance(delays.back());
  }
  CHECK(delays == std::vector<duration>{1s, 2s, 4s, 4s, 4s});
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.steps[0].attempts == 6);
  CHECK(op.data.at("outputs") == boost::json::object{{"ip", "10.0.0.7"}});
  auto evs = completions(h, id);
  REQUIRE(evs.size() == 1);
  auto& x = evs[0].extra;
  CHECK(x.at("infrastructure_id") == input.at("infrastructure_id"));
  CHECK(x.at("request_id") == input.at("request_id"));
  CHECK(x.at("status") == "COMPLETE");
  CHECK(x.at("failure_details").is_null());
  CHECK(x.at("outputs") == boost::json::object{{"ip", "10.0.0.7"}});
}

TEST_CASE("monitor: a FAILED task fails the operation with its failure code",
          "[infra][monitor]") {
  auto clk = new_clock();
  auto drv = std::make_shared<sim_driver>(sim_config{}, clk);
  harness h{watching(drv), nullptr, {}, clk};
  auto id = h.start("watch", create(*drv, "fail: INSUFFICIENT_CAPACITY zone full\nlatency_ms: 0"));
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("INSUFFICIENT_CAPACITY: zone full") != std::string::npos);
  auto evs = completions(h, id);
  REQUIRE(evs.size() == 1);
  CHECK(evs[0].extra.at("status") == "FAILED");
  CHECK(evs[0].extra.at("failure_details")
        == boost::json::object{{"failureCode", "INSUFFICIENT_CAPACITY"},
                               {"description", "zone full"}});
}

TEST_CASE("monitor: temporary errors and an unreachable location poll again",
          "[infra][monitor]") {
  auto clk = new_clock();
  auto drv = std::make_shared<sim_driver>(sim_config{}, clk);
  harness h{watching(drv), nullptr, {}, clk};
  auto input = create(*drv, "outputs.ip: 10.0.0.9\nlatency_ms: 0");
  drv->inject(error_kind::temporary, 1);
  auto id = h.start("watch", input);
  CHECK(await_retry(h, id, 1) == 1s);
  CHECK(h.eng.get(id)->steps[0].last_error.find("temporary") != std::string::npos);
  drv->set_reachable("dc1", false);
  h.clk->advance(1s);
  CHECK(await_retry(h, id, 2) == 2s);
  h.clk->advance(2s);
  CHECK(await_retry(h, id, 3) == 4s);
  auto op = h.eng.get(id);
  CHECK(op->steps[0].last_error.find("unreachable_location") != std::string::npos);
  // Secrets of the location never show in errors.
  CHECK(op->steps[0].last_error.find("hunter2") == std::string::npos);
  CHECK(completions(h, id).empty());
  drv->set_reachable("dc1", true);
  h.clk->advance(4s);
  auto fin = h.finish(id);
  CHECK(fin.state == op_state::succeeded);
  CHECK(fin.steps[0].attempts == 4);
  CHECK(completions(h, id).size() == 1);
}

TEST_CASE("monitor: an unknown task or request is reported as INTERNAL_ERROR",
          "[infra][monitor]") {
  auto clk = new_clock();
  auto drv = std::make_shared<sim_driver>(sim_config{}, clk);
  harness h{watching(drv), nullptr, {}, clk};
  auto input = create(*drv, "latency_ms: 0");
  SECTION("unknown infrastructure") {
    input["infrastructure_id"] = "inf-nope";
  }
  SECTION("unknown request") {
    input["request_id"] = "req-nope";
  }
  SECTION("a driver error") {
    drv->inject(error_kind::infrastructure_error, 1);
  }
  auto id = h.start("watch", input);
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("INTERNAL_ERROR: ") != std::string::npos);
  auto evs = completions(h, id);
  REQUIRE(evs.size() == 1);
  CHECK(evs[0].extra.at("status") == "FAILED");
  CHECK(evs[0].extra.at("request_id") == input.at("request_id"));
  CHECK(evs[0].extra.at("failure_details").at("failureCode") == "INTERNAL_ERROR");
}

TEST_CASE("monitor: a task still running at the deadline is reported and failed",
          "[infra][monitor]") {
  auto clk = new_clock();
  auto drv = std::make_shared<sim_driver>(sim_config{}, clk);
  harness h{watching(drv, paced(10s)), nullptr, {}, clk};
  auto id = h.start("watch", create(*drv, "latency_ms: 3600000"));
  // Polls at 0, 1, 3, 7 s; the next is clamped to the deadline at 10 s.
  std::vector<duration> delays;
  for (int32_t i = 1; i <= 4; ++i) {
    delays.push_back(await_retry(h, id, i));
    h.clk->advance(delays.back());
  }
  CHECK(delays == std::vector<duration>{1s, 2s, 4s, 3s});
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("monitor deadline exceeded") != std::string::npos);
  auto evs = completions(h, id);
  REQUIRE(evs.size() == 1);
  CHECK(evs[0].extra.at("failure_details").at("failureCode") == "INTERNAL_ERROR");
  // The first poll's time is in the checkpointed data.
  CHECK(op.data.at("monitors").at("monitor").at("first_poll_at").as_string()
        == format_time(from_micros(1'800'000'000'000'000)).c_str());
}

TEST_CASE("monitor: a restart mid-monitoring resumes and reports exactly once",
          "[infra][monitor]") {
  auto clk = new_clock();
  auto drv = std::make_shared<sim_driver>(sim_config{}, clk);
  auto st = std::make_shared<memory_store>();
  auto input = create(*drv, "outputs.ip: 10.0.0.7\nlatency_ms: 2500");
  std::string id;
  {
    harness h{watching(drv), st, {}, clk};
    id = h.start("watch", input);
    h.clk->advance(await_retry(h, id, 1));
    CHECK(await_retry(h, id, 2) == 2s);
  }
  // The deadline's start survived in the stored data.
  auto stored = st->load(id);
  REQUIRE(stored);
  REQUIRE(*stored);
  CHECK((*stored)->data.contains("monitors"));
  harness h{watching(drv), st, {}, clk};
  h.clk->advance(2s);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.steps[0].attempts == 3);
  auto all = st->events_after(0, 10'000);
  REQUIRE(all);
  size_t n = 0;
  for (auto& e : *all)
    n += e.operation_id == id && e.type == event_type::infrastructure_task_completed;
  CHECK(n == 1);
}
