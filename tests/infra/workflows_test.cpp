#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/infra/driver_calls.hpp"
#include "tests/infra/workflow_setup.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

using test::dc1;
using test::infra_id;
using test::location_json;
using test::provision_input;
using setup = test::workflow_setup;

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

TEST_CASE("provision_runtime fails clearly on bad input and templates", "[infra][workflows]") {
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

TEST_CASE("provision_runtime retries a busy driver and creates once", "[infra][workflows]") {
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

TEST_CASE("build_and_launch failing at launch compensates in reverse", "[infra][workflows][saga]") {
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
