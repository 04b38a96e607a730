// The monitor actor: polls on its own timers, reports once, survives
// restarts, holds to its cap on polls per second. All on the virtual clock.
#include <catch2/catch.hpp>

#include "infra/monitor.hpp"
#include "infra/sim_driver.hpp"
#include "tests/actors/harness.hpp"
#include "tests/infra/driver_calls.hpp"
#include "tests/infra/poll_log.hpp"

using namespace stepwise;
using namespace stepwise::infra;
using namespace std::chrono_literals;
using test::harness;

namespace {

const time_point t0 = from_micros(1'800'000'000'000'000);

monitor_options paced(duration deadline = std::chrono::hours(1), int32_t rate = 10000) {
  monitor_options o;
  o.initial_backoff = 1s;
  o.max_backoff = 4s;
  o.multiplier = 2.0;
  o.deadline = deadline;
  o.max_polls_per_second = rate;
  return o;
}

/// A simulated cloud seen through a poll log, on one virtual clock.
struct cloud {
  std::shared_ptr<virtual_clock> clk = std::make_shared<virtual_clock>(t0);
  std::shared_ptr<sim_driver> sim = std::make_shared<sim_driver>(sim_config{}, clk);
  std::shared_ptr<test::poll_log> log = std::make_shared<test::poll_log>(sim, clk);

  /// Workflows with one monitor step over this cloud.
  harness::registry_maker watching(monitor_options opts = paced()) {
    auto drv = log;
    return [drv, opts](caf::actor_system& sys, std::shared_ptr<virtual_clock> c) {
      registry reg;
      auto mon = spawn_monitor(sys, drv, c, opts);
      REQUIRE(reg.add(workflow("watch", 1)
                        .step(10, make_monitor_step("monitor", mon))
                        .secret("/deployment_location/properties")));
      return reg;
    };
  }

  /// Starts a create and returns the monitor's input for it.
  boost::json::object create(std::string tpl, std::string name = "vm1") {
    create_request req;
    req.template_text = std::move(tpl);
    req.system_properties["resourceName"] = std::move(name);
    req.location.name = "dc1";
    auto res = test::create_now(*sim, req);
    REQUIRE(std::holds_alternative<accepted>(res));
    auto& acc = std::get<accepted>(res);
    return {{"infrastructure_id", acc.infrastructure_id},
            {"request_id", acc.request_id},
            {"deployment_location",
             {{"name", "dc1"}, {"type", "sim"}, {"properties", {{"password", "hunter2"}}}}},
            {"kind", "create"}};
  }

  /// The engine's settings: a waiting operation passivates at once, so that
  /// the only timers on the clock are the monitor's (`next_poll` moves the
  /// clock to the next one; a lingering actor's timer would come first).
  engine_config engine() const {
    engine_config ec;
    ec.passivate_after = duration{0};
    return ec;
  }

  /// Lets the monitor make poll number `n`, advancing the clock to it.
  duration next_poll(size_t n) {
    REQUIRE(log->await_polls(n - 1));
    auto before = clk->now();
    for (int i = 0; i < 200 && log->polls().size() < n; ++i) {
      REQUIRE(clk->await_timer(std::chrono::seconds(10)));
      auto due = clk->next_due();
      REQUIRE(due);
      clk->advance(*due - clk->now());
      log->await_polls(n);
    }
    REQUIRE(log->polls().size() >= n);
    return log->polls()[n - 1] - before;
  }
};

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
  cloud c;
  harness h{c.watching(), nullptr, c.engine(), c.clk};
  auto input = c.create("outputs.ip: 10.0.0.7\nlatency_ms: 12000");
  auto id = h.start("watch", input);
  // Polls at 0, 1, 3, 7, 11 s find it in progress; the one at 15 s does not.
  REQUIRE(c.log->await_polls(1));
  std::vector<duration> delays;
  for (size_t n = 2; n <= 6; ++n)
    delays.push_back(c.next_poll(n));
  CHECK(delays == std::vector<duration>{1s, 2s, 4s, 4s, 4s});
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.steps[0].attempts == 1);
  CHECK(op.data.at("outputs") == boost::json::object{{"ip", "10.0.0.7"}});
  auto evs = completions(h, id);
  REQUIRE(evs.size() == 1);
  auto& x = evs[0].extra;
  CHECK(x.at("infrastructure_id") == input.at("infrastructure_id"));
  CHECK(x.at("request_id") == input.at("request_id"));
  CHECK(x.at("status") == "COMPLETE");
  CHECK(x.at("failure_details").is_null());
  CHECK(x.at("outputs") == boost::json::object{{"ip", "10.0.0.7"}});
  CHECK(h.eng.stats().operations_sleeping.load() == 0);
}

TEST_CASE("monitor: a FAILED task fails the operation with its failure code", "[infra][monitor]") {
  cloud c;
  harness h{c.watching(), nullptr, c.engine(), c.clk};
  auto id = h.start("watch", c.create("fail: INSUFFICIENT_CAPACITY zone full\nlatency_ms: 0"));
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("INSUFFICIENT_CAPACITY: zone full") != std::string::npos);
  auto evs = completions(h, id);
  REQUIRE(evs.size() == 1);
  CHECK(evs[0].extra.at("status") == "FAILED");
  CHECK(
    evs[0].extra.at("failure_details")
    == boost::json::object{{"failureCode", "INSUFFICIENT_CAPACITY"}, {"description", "zone full"}});
}

TEST_CASE("monitor: temporary errors and an unreachable location poll again", "[infra][monitor]") {
  cloud c;
  harness h{c.watching(), nullptr, c.engine(), c.clk};
  auto input = c.create("outputs.ip: 10.0.0.9\nlatency_ms: 0");
  c.sim->inject(error_kind::temporary, 1);
  auto id = h.start("watch", input);
  REQUIRE(c.log->await_polls(1));
  c.sim->set_reachable("dc1", false);
  CHECK(c.next_poll(2) == 1s);
  CHECK(c.next_poll(3) == 2s);
  CHECK(completions(h, id).empty());
  c.sim->set_reachable("dc1", true);
  CHECK(c.next_poll(4) == 4s);
  auto fin = h.finish(id);
  CHECK(fin.state == op_state::succeeded);
  CHECK(completions(h, id).size() == 1);
}

TEST_CASE("monitor: an unknown task or request is reported as INTERNAL_ERROR", "[infra][monitor]") {
  cloud c;
  harness h{c.watching(), nullptr, c.engine(), c.clk};
  auto input = c.create("latency_ms: 0");
  SECTION("unknown infrastructure") {
    input["infrastructure_id"] = "inf-nope";
  }
  SECTION("unknown request") {
    input["request_id"] = "req-nope";
  }
  SECTION("a driver error") {
    c.sim->inject(error_kind::infrastructure_error, 1);
  }
  auto id = h.start("watch", input);
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("INTERNAL_ERROR: ") != std::string::npos);
  // Secrets of the location never show in errors.
  CHECK(op.error.find("hunter2") == std::string::npos);
  auto evs = completions(h, id);
  REQUIRE(evs.size() == 1);
  CHECK(evs[0].extra.at("status") == "FAILED");
  CHECK(evs[0].extra.at("request_id") == input.at("request_id"));
  CHECK(evs[0].extra.at("failure_details").at("failureCode") == "INTERNAL_ERROR");
}

TEST_CASE("monitor: a task still running at the deadline is reported and failed",
          "[infra][monitor]") {
  cloud c;
  harness h{c.watching(paced(10s)), nullptr, c.engine(), c.clk};
  auto id = h.start("watch", c.create("latency_ms: 3600000"));
  // Polls at 0, 1, 3, 7 s; the next is clamped to the deadline at 10 s.
  REQUIRE(c.log->await_polls(1));
  std::vector<duration> delays;
  for (size_t n = 2; n <= 5; ++n)
    delays.push_back(c.next_poll(n));
  CHECK(delays == std::vector<duration>{1s, 2s, 4s, 3s});
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("monitor deadline exceeded") != std::string::npos);
  auto evs = completions(h, id);
  REQUIRE(evs.size() == 1);
  CHECK(evs[0].extra.at("failure_details").at("failureCode") == "INTERNAL_ERROR");
}

TEST_CASE("monitor: a restart mid-monitoring hands the task back and reports once",
          "[infra][monitor]") {
  cloud c;
  auto st = std::make_shared<memory_store>();
  auto input = c.create("outputs.ip: 10.0.0.7\nlatency_ms: 6500");
  std::string id;
  {
    harness h{c.watching(), st, c.engine(), c.clk};
    id = h.start("watch", input);
    REQUIRE(c.log->await_polls(1));
    c.next_poll(2);
    c.next_poll(3); // at 3 s; the next would be at 7 s
  }
  // The wait and when it began are stored: the new monitor resumes the
  // schedule from there (after one poll at once).
  harness h{c.watching(), st, c.engine(), c.clk};
  REQUIRE(c.log->await_polls(4));
  CHECK(c.log->polls()[3] == c.clk->now());
  auto restarted = c.clk->now();
  CHECK(c.next_poll(5) == 7s - (restarted - t0));
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.steps[0].attempts == 1);
  auto all = st->events_after(0, 10'000);
  REQUIRE(all);
  size_t n = 0;
  for (auto& e : *all)
    n += e.operation_id == id && e.type == event_type::infrastructure_task_completed;
  CHECK(n == 1);
}

TEST_CASE("monitor: polls per second stay under the cap", "[infra][monitor]") {
  cloud c;
  harness h{c.watching(paced(std::chrono::hours(1), 10)), nullptr, c.engine(), c.clk};
  std::vector<std::string> ids;
  for (int i = 0; i < 35; ++i)
    ids.push_back(h.start("watch", c.create("latency_ms: 0", "vm" + std::to_string(i))));
  // 35 first polls at a cap of 10 a second take four seconds of clock: each
  // step to the monitor's next timer lets ten more go.
  size_t expect = 10;
  REQUIRE(c.log->await_polls(expect));
  while (expect < 35) {
    REQUIRE(c.clk->await_timer(std::chrono::seconds(10)));
    c.clk->advance(*c.clk->next_due() - c.clk->now());
    expect = std::min<size_t>(35, expect + 10);
    REQUIRE(c.log->await_polls(expect));
  }
  auto polls = c.log->polls();
  REQUIRE(polls.size() == 35);
  for (size_t i = 0; i < polls.size(); ++i) {
    size_t in_window = 0;
    for (auto& p : polls)
      in_window += p >= polls[i] && p < polls[i] + 1s;
    CHECK(in_window <= 10);
  }
  CHECK(polls.back() - polls.front() >= 3s);
  for (auto& id : ids)
    CHECK(h.finish(id).state == op_state::succeeded);
}

TEST_CASE("monitor: a watched wait keeps its actor for passivate_after, then passivates",
          "[infra][monitor]") {
  cloud c;
  engine_config ec;
  ec.passivate_after = 5s;
  harness h{c.watching(), nullptr, ec, c.clk};
  auto id = h.start("watch", c.create("outputs.ip: 10.0.0.7\nlatency_ms: 12000"));
  // Two timers once the monitor has its poll's answer: its next poll and
  // the actor's own at 5 s (a passivated operation without a timeout would
  // leave only the first).
  auto two_timers = [&] {
    auto until = std::chrono::steady_clock::now() + 10s;
    while (c.clk->pending() < 2 && std::chrono::steady_clock::now() < until)
      h.pump(10ms);
    return c.clk->pending() == 2;
  };
  for (size_t n = 1; n <= 3; ++n) { // polls at 0, 1 and 3 s
    REQUIRE(c.log->await_polls(n));
    REQUIRE(two_timers());
    CHECK(h.eng.stats().operations_sleeping.load() == 0);
    if (n < 3)
      c.clk->advance(*c.clk->next_due() - c.clk->now());
  }
  c.clk->advance(t0 + 5s - c.clk->now());
  auto until = std::chrono::steady_clock::now() + 10s;
  while (h.eng.stats().operations_sleeping.load() == 0 && std::chrono::steady_clock::now() < until)
    h.pump(10ms);
  CHECK(h.eng.stats().operations_sleeping.load() == 1);
  // The report at 15 s wakes it (polls at 7, 11 and 15 s).
  for (size_t n = 4; n <= 6; ++n)
    c.next_poll(n);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.data.at("outputs") == boost::json::object{{"ip", "10.0.0.7"}});
  CHECK(completions(h, id).size() == 1);
}
