#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "infra/sim_driver.hpp"
#include "workflows/infrastructure.hpp"
#include "tests/actors/harness.hpp"
#include "tests/infra/driver_calls.hpp"
#include "tests/infra/poll_log.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;

namespace {

struct setup {
  std::shared_ptr<virtual_clock> clk
    = std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
  std::shared_ptr<memory_store> st = std::make_shared<memory_store>();
  std::shared_ptr<infra::sim_driver> drv;
  std::shared_ptr<test::poll_log> log;
  std::unique_ptr<harness> h;

  explicit setup(workflows::cleanup_fn cleanup = nullptr) {
    infra::sim_config cfg;
    cfg.min_latency = cfg.max_latency = 5s;
    drv = std::make_shared<infra::sim_driver>(cfg, clk);
    log = std::make_shared<test::poll_log>(drv, clk);
    workflows::infrastructure_deps deps;
    deps.driver = drv;
    auto store = st;
    deps.read_operation = [store](const std::string& id) { return store->load(id); };
    deps.calls.initial_interval = 1s;
    deps.calls.jitter = 0;
    deps.cleanup = std::move(cleanup);
    auto polled = log;
    h = std::make_unique<harness>(
      [deps, polled](caf::actor_system& sys, std::shared_ptr<virtual_clock> c) mutable {
        infra::monitor_options opts;
        opts.initial_backoff = 1s;
        opts.max_backoff = 4s;
        deps.monitor = infra::spawn_monitor(sys, polled, c, opts);
        registry reg;
        REQUIRE(workflows::add_infrastructure_workflows(reg, deps));
        return reg;
      },
      st, engine_config{}, clk);
  }

  /// Runs operation `id` to its end, moving the clock to each timer and
  /// waiting for the engine or the monitor to act on it.
  operation drive(const std::string& id) {
    for (int i = 0; i < 1000; ++i) {
      auto op = h->eng.get(id);
      if (!op)
        FAIL("get " << id << ": " << message_of(op.error()));
      if (is_terminal(op->state))
        return h->finish(id);
      auto polls = log->polls().size();
      auto seen = h->seen.size();
      if (auto due = clk->next_due(); due && *due > clk->now())
        clk->advance(*due - clk->now());
      else if (due)
        clk->advance(duration{0});
      auto until = std::chrono::steady_clock::now() + 2s;
      while (h->seen.size() == seen && log->polls().size() == polls
             && std::chrono::steady_clock::now() < until)
        h->pump(std::chrono::milliseconds(10));
    }
    FAIL("operation " << id << " did not finish");
    return {};
  }

  std::vector<event> of(const std::string& id, event_type type) const {
    std::vector<event> out;
    for (auto& e : h->seen)
      if (e.operation_id == id && e.type == type)
        out.push_back(e);
    return out;
  }
};

boost::json::object location_json() {
  return {{"name", "dc1"}, {"type", "sim"}, {"properties", {{"password", "hunter2"}}}};
}

boost::json::object provision_input(std::string tpl = "outputs.ip: 10.1.1.1") {
  return {{"name", "rt1"},
          {"deployment_location", location_json()},
          {"template", std::move(tpl)},
          {"template_type", "sim"}};
}

infra::deployment_location dc1() {
  infra::deployment_location loc;
  loc.name = "dc1";
  return loc;
}

std::string infra_id(const operation& op, const char* key) {
  return std::string(op.data.at(key).at("infrastructure_id").as_string());
}

} // namespace

TEST_CASE("provision_runtime then deprovision_runtime", "[infra][workflows]") {
  setup s;
  auto& h = *s.h;
  auto prov = s.drive(h.start("provision_runtime", provision_input()));
  REQUIRE(prov.state == op_state::succeeded);
  auto id = infra_id(prov, "infrastructure");
  CHECK(s.drv->exists(id));
  CHECK(prov.data.at("outputs") == boost::json::object{{"ip", "10.1.1.1"}});
  auto& runtime = prov.data.at("runtime").as_object();
  CHECK(runtime.at("name") == "rt1");
  CHECK(runtime.at("infrastructure_id").as_string() == id.c_str());
  CHECK(runtime.at("location") == "dc1");
  CHECK(s.of(prov.id, event_type::infrastructure_task_completed).size() == 1);
  auto found = test::find_now(*s.drv, "type: any", "sim", "rt1", dc1());
  REQUIRE(std::get<std::optional<infra::found>>(found));
  // Credentials are masked in what callers see.
  CHECK(prov.input->at("deployment_location").at("properties") == "***");

  auto de = s.drive(h.start("deprovision_runtime", {{"provision_operation_id", prov.id}}));
  REQUIRE(de.state == op_state::succeeded);
  CHECK(de.data.at("target").at("infrastructure_id").as_string() == id.c_str());
  CHECK(de.data.at("deletion").as_object().contains("request_id"));
  CHECK(!s.drv->exists(id));
  CHECK(!std::get<std::optional<infra::found>>(
    test::find_now(*s.drv, "type: any", "sim", "rt1", dc1())));
  CHECK(de.data.at("cleanups")
        == boost::json::object{{"release_dns", "done"}, {"remove_monitoring", "done"}});
  auto evs = s.of(de.id, event_type::infrastructure_task_completed);
  REQUIRE(evs.size() == 1);
  CHECK(evs[0].extra.at("status") == "COMPLETE");
  // The location's credentials were never copied into the data.
  CHECK(boost::json::serialize(de.data).find("hunter2") == std::string::npos);

  // Again: the infrastructure is already gone, which is not an error.
  auto again = s.drive(h.start("deprovision_runtime", {{"provision_operation_id", prov.id}}));
  CHECK(again.state == op_state::succeeded);
  CHECK(again.data.at("deletion") == boost::json::object{{"already_gone", true}});
  CHECK(again.steps[2].state == step_state::skipped);
}

TEST_CASE("provision_runtime fails clearly on bad input and templates",
          "[infra][workflows]") {
  setup s;
  auto& h = *s.h;
  auto no_name = provision_input();
  no_name.erase("name");
  auto op = s.drive(h.start("provision_runtime", no_name));
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("\"name\"") != std::string::npos);
  op = s.drive(h.start("provision_runtime", provision_input("not a template")));
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("invalid_template") != std::string::npos);
  CHECK(s.drv->creates() == 0);
}

TEST_CASE("provision_runtime retries a busy driver and creates once",
          "[infra][workflows]") {
  setup s;
  auto& h = *s.h;
  s.drv->inject(infra::error_kind::temporary, 2);
  auto op = s.drive(h.start("provision_runtime", provision_input()));
  CHECK(op.state == op_state::succeeded);
  CHECK(op.steps[1].attempts == 3);
  CHECK(s.drv->creates() == 1);
}

TEST_CASE("deprovision_runtime: best-effort cleanups may fail", "[infra][workflows]") {
  setup s{[](const std::string& task, step_context& ctx) {
    if (task == "release_dns")
      return fail("dns service refused (simulated)");
    ctx.data()[task] = true;
    return done();
  }};
  auto& h = *s.h;
  auto prov = s.drive(h.start("provision_runtime", provision_input()));
  REQUIRE(prov.state == op_state::succeeded);
  auto de = s.drive(h.start("deprovision_runtime", {{"provision_operation_id", prov.id}}));
  CHECK(de.state == op_state::succeeded);
  CHECK(de.steps[3].name == "release_dns");
  CHECK(de.steps[3].state == step_state::incomplete);
  CHECK(de.steps[4].state == step_state::succeeded);
  CHECK(!s.drv->exists(infra_id(prov, "infrastructure")));
}

TEST_CASE("deprovision_runtime of an unknown operation fails", "[infra][workflows]") {
  setup s;
  auto de = s.drive(s.h->start("deprovision_runtime", {{"provision_operation_id", "nope"}}));
  CHECK(de.state == op_state::failed);
  CHECK(de.error.find("no operation nope") != std::string::npos);
}

namespace {

boost::json::object saga_input(std::string instance_tpl) {
  return {{"name", "app"},
          {"deployment_location", location_json()},
          {"image_template", "outputs.image: img-1\nlatency_ms: 3000"},
          {"instance_template", std::move(instance_tpl)},
          {"template_type", "sim"}};
}

} // namespace

TEST_CASE("build_and_launch builds, then launches", "[infra][workflows][saga]") {
  setup s;
  auto op = s.drive(s.h->start("build_and_launch", saga_input("outputs.ip: 10.2.2.2")));
  REQUIRE(op.state == op_state::succeeded);
  CHECK(op.data.at("image_outputs") == boost::json::object{{"image", "img-1"}});
  CHECK(op.data.at("instance_outputs") == boost::json::object{{"ip", "10.2.2.2"}});
  CHECK(s.drv->exists(infra_id(op, "image")));
  CHECK(s.drv->exists(infra_id(op, "instance")));
  CHECK(s.of(op.id, event_type::infrastructure_task_completed).size() == 2);
  CHECK(s.of(op.id, event_type::compensation_started).empty());
}

TEST_CASE("build_and_launch failing at launch compensates in reverse",
          "[infra][workflows][saga]") {
  setup s;
  auto op = s.drive(s.h->start(
    "build_and_launch", saga_input("fail: INSUFFICIENT_CAPACITY no room\nlatency_ms: 1000")));
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("INSUFFICIENT_CAPACITY") != std::string::npos);
  auto started = s.of(op.id, event_type::compensation_started);
  auto succeeded = s.of(op.id, event_type::compensation_succeeded);
  REQUIRE(started.size() == 2);
  REQUIRE(succeeded.size() == 2);
  CHECK(succeeded[0].step == "launch_instance");
  CHECK(succeeded[1].step == "build_image");
  CHECK(succeeded[0].seq < started[1].seq);
  CHECK(op.data.contains("image_deletion"));
  CHECK(op.data.contains("instance_deletion"));
  // The deletes the compensations started complete in the sim.
  s.clk->advance(5s);
  CHECK(!s.drv->exists(infra_id(op, "image")));
  CHECK(!s.drv->exists(infra_id(op, "instance")));
}

TEST_CASE("build_and_launch canceled while the image builds deletes the image",
          "[infra][workflows][saga]") {
  setup s;
  auto& h = *s.h;
  auto id = h.start("build_and_launch", saga_input("outputs.ip: 10.2.2.2"));
  REQUIRE(s.log->await_polls(1)); // the monitor follows the build
  REQUIRE(h.eng.cancel(id));
  auto op = s.drive(id);
  CHECK(op.state == op_state::canceled);
  auto succeeded = s.of(id, event_type::compensation_succeeded);
  REQUIRE(succeeded.size() == 1);
  CHECK(succeeded[0].step == "build_image");
  CHECK(!op.data.contains("instance"));
  s.clk->advance(5s);
  CHECK(!s.drv->exists(infra_id(op, "image")));
  CHECK(s.drv->creates() == 1);
}
