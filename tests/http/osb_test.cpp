// The Open Service Broker API end to end on the real binary with the
// simulated cloud: catalog, provision, poll, deprovision, and the refusals
// the specification asks for, each answer checked against our OpenAPI
// document.

#include <signal.h>

#include <catch2/catch.hpp>

#include "http/osb_catalog.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/osb_support.hpp"
#include "tests/http/serve_child.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

const std::string service = http::osb_service_id;
const std::string tosca = "5d2e8f61-0b7c-4a93-9e4d-2c6f1a8b3e21";
const std::string heat = "7a4c1e93-2f5b-4d08-b6a1-9e3d5c7f2b42";

// The sim's task takes 1.5 s: long enough to see it in progress.
std::string provision_body(const std::string& plan,
                           const std::string& tpl = "outputs.url: http://rt") {
  return R"({"service_id":")" + service + R"(","plan_id":")" + plan
         + R"(","organization_guid":"o","space_guid":"s","parameters":{"template":")" + tpl
         + R"(\nlatency_ms: 1500","deployment_location":{"name":"dc1","properties":{"password":"hunter2"}}}})";
}

using broker = broker_process;

void documented(const reply& r, const std::string& path, const std::string& method) {
  osb_documented(r, path, method);
}

std::string settle(const broker& b, const std::string& target) {
  return b.settle(target);
}

} // namespace

TEST_CASE("broker: credentials, API version and the catalog", "[http][osb]") {
  broker b;
  INFO(b.srv.err);
  REQUIRE(b.port > 0);
  auto anonymous = b.call("GET", "/v2/catalog", "", "2.17", nullptr);
  CHECK(anonymous.status == 401);
  CHECK(anonymous.header("WWW-Authenticate").rfind("Basic ", 0) == 0);
  CHECK(anonymous.json.at("error") == "Unauthorized");
  documented(anonymous, "/v2/catalog", "get");
  CHECK(b.call("GET", "/v2/catalog", "", "2.17", "wrong-password-123").status == 401);
  for (auto version : {(const char*)nullptr, "2.12", "1.17", "two"}) {
    auto r = b.call("GET", "/v2/catalog", "", version);
    CHECK(r.status == 412);
    CHECK(r.json.at("error") == "UnsupportedApiVersion");
    documented(r, "/v2/catalog", "get");
  }
  CHECK(b.call("GET", "/v2/catalog", "", "2.13").status == 200);
  auto cat = b.call("GET", "/v2/catalog");
  REQUIRE(cat.status == 200);
  documented(cat, "/v2/catalog", "get");
  auto& services = cat.json.at("services").as_array();
  REQUIRE(services.size() == 1);
  CHECK(services[0].at("id") == service.c_str());
  CHECK(services[0].at("bindable") == true);
  CHECK(services[0].at("instances_retrievable") == true);
  CHECK(services[0].at("bindings_retrievable") == true);
  CHECK(services[0].at("plan_updateable") == true);
  auto& plans = services[0].at("plans").as_array();
  REQUIRE(plans.size() == 2);
  auto& params = plans[0].at("schemas").at("service_instance").at("create").at("parameters");
  CHECK(params.at("$schema").as_string().find("draft-04") != std::string::npos);
  CHECK(params.at("required").as_array().size() == 2);
  CHECK(plans[0].at("schemas").at("service_instance").at("update").at("parameters").at("type")
        == "object");
  // Errors of unknown routes and methods keep the broker's shape.
  auto none = b.call("GET", "/v2/service_instances/x/service_bindings/y/nothing");
  CHECK(none.status == 404);
  CHECK(none.json.at("error") == "NotFound");
}

TEST_CASE("broker: provision, poll, provision again, deprovision", "[http][osb]") {
  broker b;
  INFO(b.srv.err);
  REQUIRE(b.port > 0);
  auto inst = std::string("/v2/service_instances/rt-1");
  auto sync = b.call("PUT", inst, provision_body(tosca));
  CHECK(sync.status == 422);
  CHECK(sync.json.at("error") == "AsyncRequired");
  documented(sync, "/v2/service_instances/{instance_id}", "put");
  auto async = inst + "?accepts_incomplete=true";
  auto first = b.call("PUT", async, provision_body(tosca));
  REQUIRE(first.status == 202);
  documented(first, "/v2/service_instances/{instance_id}", "put");
  auto op = std::string(first.json.at("operation").as_string());
  // Sent again while it runs: the same operation.
  auto again = b.call("PUT", async, provision_body(tosca));
  CHECK(again.status == 202);
  CHECK(again.json.at("operation") == op.c_str());
  auto conflict = b.call("PUT", async, provision_body(heat));
  CHECK(conflict.status == 409);
  documented(conflict, "/v2/service_instances/{instance_id}", "put");
  CHECK(b.call("PUT", async, provision_body(tosca, "outputs.url: http://other")).status == 409);
  auto early = b.call("GET", inst + "/last_operation?operation=" + op);
  REQUIRE(early.status == 200);
  documented(early, "/v2/service_instances/{instance_id}/last_operation", "get");
  CHECK(early.json.at("state") == "in progress");
  CHECK(early.json.at("description").as_string().find("step") != std::string::npos);
  auto busy =
    b.call("DELETE", inst + "?accepts_incomplete=true&service_id=" + service + "&plan_id=" + tosca);
  CHECK(busy.status == 422);
  CHECK(busy.json.at("error") == "ConcurrencyError");
  CHECK(settle(b, inst + "/last_operation?operation=" + op) == "succeeded");
  auto done = b.call("PUT", async, provision_body(tosca));
  CHECK(done.status == 200);
  CHECK(done.body == "{}");
  documented(done, "/v2/service_instances/{instance_id}", "put");

  auto del = inst + "?service_id=" + service + "&plan_id=" + tosca;
  CHECK(b.call("DELETE", inst + "?accepts_incomplete=true").status == 400);
  CHECK(b.call("DELETE", del).json.at("error") == "AsyncRequired");
  CHECK(
    b.call("DELETE", inst + "?accepts_incomplete=true&service_id=" + service + "&plan_id=" + heat)
      .status
    == 400);
  auto gone = b.call("DELETE", del + "&accepts_incomplete=true");
  REQUIRE(gone.status == 202);
  documented(gone, "/v2/service_instances/{instance_id}", "delete");
  auto dop = std::string(gone.json.at("operation").as_string());
  CHECK(dop != op);
  // Without ?operation= the instance's newest operation: its deletion.
  CHECK(settle(b, inst + "/last_operation") == "succeeded");
  auto last = b.call("GET", inst + "/last_operation?operation=" + dop);
  CHECK(last.json.at("description") == "deprovisioning succeeded");
  auto twice = b.call("DELETE", del + "&accepts_incomplete=true");
  CHECK(twice.status == 410);
  documented(twice, "/v2/service_instances/{instance_id}", "delete");
  auto reuse = b.call("PUT", async, provision_body(tosca));
  CHECK(reuse.status == 409);
  CHECK(reuse.json.at("description").as_string().find("not reused") != std::string::npos);
  // The location's password never left the server.
  REQUIRE(::kill(b.srv.pid, SIGTERM) == 0);
  CHECK(b.srv.wait_exit(std::chrono::seconds(30)) == 0);
  b.srv.await_output("stopped", std::chrono::seconds(5));
  CHECK(b.srv.err.find("hunter2") == std::string::npos);
  CHECK(b.srv.err.find(broker_password) == std::string::npos);
}

TEST_CASE("broker: unknown instances and bad requests", "[http][osb]") {
  broker b;
  INFO(b.srv.err);
  REQUIRE(b.port > 0);
  auto unknown = b.call("DELETE", "/v2/service_instances/nope?accepts_incomplete=true&service_id="
                                    + service + "&plan_id=" + tosca);
  CHECK(unknown.status == 410);
  CHECK(unknown.body == "{}");
  auto poll = b.call("GET", "/v2/service_instances/nope/last_operation");
  CHECK(poll.status == 404);
  documented(poll, "/v2/service_instances/{instance_id}/last_operation", "get");
  auto async = std::string("/v2/service_instances/rt-2?accepts_incomplete=true");
  auto cases = {
    std::make_pair(std::string("{"), std::string("MalformedJson")),
    std::make_pair(R"({"service_id":")" + service + R"(","plan_id":"nope"})",
                   std::string("InvalidArgument")),
    std::make_pair(R"({"service_id":")" + service + R"(","plan_id":")" + tosca + R"("})",
                   std::string("InvalidParameters")),
    std::make_pair(
      R"({"service_id":")" + service + R"(","plan_id":")" + tosca
        + R"(","parameters":{"template":"t","deployment_location":{"name":"dc1"},"size":1}})",
      std::string("InvalidParameters")),
  };
  for (auto& [body, code] : cases) {
    auto r = b.call("PUT", async, body);
    INFO(body << " -> " << r.body);
    CHECK(r.status == 400);
    CHECK(r.json.at("error") == code.c_str());
    documented(r, "/v2/service_instances/{instance_id}", "put");
  }
  auto ok = b.call("PUT", async, provision_body(heat));
  REQUIRE(ok.status == 202);
  auto other = b.call("GET", "/v2/service_instances/rt-1/last_operation?operation="
                               + std::string(ok.json.at("operation").as_string()));
  CHECK(other.status == 400);
  CHECK(b.call("GET", "/v2/service_instances/rt-2/last_operation?operation=op-nope").status == 404);
}
