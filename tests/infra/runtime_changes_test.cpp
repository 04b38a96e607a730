// The service broker's workflows on the simulated cloud: update_runtime
// replaces a runtime's infrastructure (new first, old deleted after),
// bind_runtime keeps a sealed password, unbind_runtime revokes it, and
// deprovision_runtime deletes the infrastructure of the last update.

#include <catch2/catch.hpp>

#include "engine/sealed_json.hpp"
#include "tests/infra/workflow_setup.hpp"

using namespace stepwise;

TEST_CASE("update_runtime replaces the runtime; bind, unbind, deprovision follow it",
          "[infra][workflows]") {
  test::workflow_setup s;
  auto& h = *s.h;
  auto prov = s.drive(h.start("provision_runtime", test::provision_input("outputs.url: http://a")));
  REQUIRE(prov.state == op_state::succeeded);
  auto old_id = test::infra_id(prov, "infrastructure");

  boost::json::object change{{"name", "rt1"},
                             {"template", "outputs.url: http://b"},
                             {"template_type", "sim"},
                             {"provision_operation_id", prov.id},
                             {"runtime_operation_id", prov.id}};
  auto up = s.drive(h.start("update_runtime", change));
  REQUIRE(up.state == op_state::succeeded);
  auto new_id = test::infra_id(up, "infrastructure");
  CHECK(new_id != old_id);
  CHECK(s.drv->exists(new_id));
  CHECK(!s.drv->exists(old_id));
  CHECK(up.data.at("runtime").at("outputs").at("url") == "http://b");
  // The provisioning's location credentials were used, never copied.
  CHECK(boost::json::serialize(up.data).find("hunter2") == std::string::npos);
  CHECK(boost::json::serialize(*up.input).find("hunter2") == std::string::npos);

  auto bind = s.drive(h.start("bind_runtime", {{"name", "rt1"}, {"runtime_operation_id", up.id}}));
  REQUIRE(bind.state == op_state::succeeded);
  CHECK(bind.data.at("url") == "http://b");
  CHECK(bind.data.at("password") == "***");
  auto stored = s.st->load(bind.id);
  REQUIRE(stored);
  REQUIRE(*stored);
  CHECK(is_sealed((*stored)->data.at("password")));

  auto unbind =
    s.drive(h.start("unbind_runtime", {{"name", "rt1"}, {"bind_operation_id", bind.id}}));
  REQUIRE(unbind.state == op_state::succeeded);
  CHECK(unbind.data.at("revoked") == bind.id.c_str());

  auto de = s.drive(h.start(
    "deprovision_runtime",
    {{"provision_operation_id", prov.id}, {"runtime_operation_id", up.id}, {"name", "rt1"}}));
  REQUIRE(de.state == op_state::succeeded);
  CHECK(de.data.at("target").at("infrastructure_id") == new_id.c_str());
  CHECK(!s.drv->exists(new_id));
}

TEST_CASE("update_runtime of a runtime that does not exist fails", "[infra][workflows]") {
  test::workflow_setup s;
  auto& h = *s.h;
  auto up = s.drive(h.start("update_runtime", {{"name", "rt1"},
                                               {"template", "outputs.url: http://b"},
                                               {"provision_operation_id", "op-nope"},
                                               {"runtime_operation_id", "op-nope"}}));
  CHECK(up.state == op_state::failed);
  CHECK(up.error.find("op-nope") != std::string::npos);
}
