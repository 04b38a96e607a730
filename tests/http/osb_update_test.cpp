// The service broker's fetch and update (GET and PATCH
// /v2/service_instances/{id}) on the real binary with the simulated
// cloud, written from OSB 2.17's "Fetching a Service Instance" and
// "Updating a Service Instance": each answer checked against our OpenAPI
// document.

#include <catch2/catch.hpp>

#include "http/osb_catalog.hpp"
#include "tests/http/osb_support.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

const std::string svc = http::osb_service_id;
const std::string plan_tosca = osb_tosca_plan;
const std::string plan_heat = osb_heat_plan;
const std::string instance_path = "/v2/service_instances/{instance_id}";

// The sim's tasks take 1.5 s: long enough to see them in progress.
std::string provision_request(const std::string& tpl) {
  return R"({"service_id":")" + svc + R"(","plan_id":")" + plan_tosca
         + R"(","parameters":{"template":")" + tpl
         + R"(\nlatency_ms: 1500","deployment_location":{"name":"dc1","properties":{"password":"hunter2"}}}})";
}

std::string patch_request(const std::string& plan, const std::string& parameters) {
  return R"({"service_id":")" + svc + "\""
         + (plan.empty() ? std::string() : R"(,"plan_id":")" + plan + "\"")
         + (parameters.empty() ? std::string() : R"(,"parameters":)" + parameters)
         + R"(,"previous_values":{"plan_id":")" + plan_tosca + R"("}})";
}

void check_concurrency(const reply& r, const std::string& method) {
  INFO(method << " -> " << r.body);
  CHECK(r.status == 422);
  CHECK(r.json.at("error") == "ConcurrencyError");
  osb_documented(r, instance_path, method);
}

} // namespace

TEST_CASE("broker: fetch and update an instance", "[http][osb]") {
  broker_process b;
  INFO(b.srv.err);
  REQUIRE(b.port > 0);
  auto inst = std::string("/v2/service_instances/rt-u");
  auto async = inst + "?accepts_incomplete=true";
  auto unknown = b.call("GET", "/v2/service_instances/nope");
  CHECK(unknown.status == 404);
  osb_documented(unknown, instance_path, "get");
  auto first = b.call("PUT", async, provision_request("outputs.url: http://rt-1"));
  REQUIRE(first.status == 202);
  auto prov = std::string(first.json.at("operation").as_string());
  // While it is provisioned: 404 to a fetch, 422 to a change.
  auto early = b.call("GET", inst);
  CHECK(early.status == 404);
  osb_documented(early, instance_path, "get");
  auto new_template = R"({"template":"outputs.url: http://rt-2\nlatency_ms: 1500"})";
  check_concurrency(b.call("PATCH", async, patch_request(plan_heat, new_template)), "patch");
  auto early_bind = b.call("PUT", inst + "/service_bindings/b-0?accepts_incomplete=true",
                           R"({"service_id":")" + svc + R"(","plan_id":")" + plan_tosca + "\"}");
  CHECK(early_bind.status == 422);
  CHECK(early_bind.json.at("error") == "ConcurrencyError");
  CHECK(b.settle(inst + "/last_operation?operation=" + prov) == "succeeded");

  auto got = b.call("GET", inst + "?service_id=" + svc + "&plan_id=" + plan_tosca);
  REQUIRE(got.status == 200);
  osb_documented(got, instance_path, "get");
  CHECK(got.json.at("service_id") == svc.c_str());
  CHECK(got.json.at("plan_id") == plan_tosca.c_str());
  auto& params = got.json.at("parameters");
  CHECK(params.at("name") == "rt-u");
  CHECK(params.at("deployment_location").at("name") == "dc1");
  CHECK(!params.at("deployment_location").as_object().contains("properties"));
  CHECK(got.body.find("hunter2") == std::string::npos);

  // Refusals: each leaves the instance as it was.
  auto sync = b.call("PATCH", inst, patch_request(plan_heat, new_template));
  CHECK(sync.status == 422);
  CHECK(sync.json.at("error") == "AsyncRequired");
  osb_documented(sync, instance_path, "patch");
  for (auto& [body, code] :
       {std::make_pair(std::string(R"({"plan_id":")") + plan_heat + "\"}", "InvalidArgument"),
        std::make_pair(patch_request("nope", ""), "InvalidArgument"),
        std::make_pair(patch_request("", R"({"name":"other"})"), "InvalidParameters"),
        std::make_pair(patch_request("", R"({"deployment_location":{"name":"dc2"}})"),
                       "InvalidParameters"),
        std::make_pair(patch_request("", R"({"size":3})"), "InvalidParameters"),
        std::make_pair(std::string("{"), "MalformedJson")}) {
    auto r = b.call("PATCH", async, body);
    INFO(body << " -> " << r.body);
    CHECK(r.status == 400);
    CHECK(r.json.at("error") == code);
    osb_documented(r, instance_path, "patch");
  }
  auto missing = b.call("PATCH", "/v2/service_instances/nope?accepts_incomplete=true",
                        patch_request(plan_heat, ""));
  CHECK(missing.status == 404);
  osb_documented(missing, instance_path, "patch");
  // No change: applied at once.
  auto same = b.call("PATCH", async, patch_request("", ""));
  CHECK(same.status == 200);
  CHECK(same.body == "{}");
  osb_documented(same, instance_path, "patch");

  auto patch = b.call("PATCH", async, patch_request(plan_heat, new_template));
  REQUIRE(patch.status == 202);
  osb_documented(patch, instance_path, "patch");
  auto op = std::string(patch.json.at("operation").as_string());
  CHECK(op != prov);
  // The same PATCH again while it runs: the same operation.
  auto again = b.call("PATCH", async, patch_request(plan_heat, new_template));
  CHECK(again.status == 202);
  CHECK(again.json.at("operation") == op.c_str());
  // Anything else of the instance meanwhile: ConcurrencyError.
  check_concurrency(b.call("PATCH", async, patch_request(plan_tosca, "")), "patch");
  check_concurrency(b.call("GET", inst), "get");
  check_concurrency(b.call("DELETE", async + "&service_id=" + svc + "&plan_id=" + plan_tosca),
                    "delete");
  auto bind = b.call("PUT", inst + "/service_bindings/b-1?accepts_incomplete=true",
                     R"({"service_id":")" + svc + R"(","plan_id":")" + plan_tosca + "\"}");
  CHECK(bind.status == 422);
  CHECK(bind.json.at("error") == "ConcurrencyError");
  auto polled = b.call("GET", inst + "/last_operation?operation=" + op);
  REQUIRE(polled.status == 200);
  CHECK(polled.json.at("state") == "in progress");
  CHECK(polled.json.at("description").as_string().find("updating") != std::string::npos);
  // Without ?operation= the newest: the update.
  CHECK(b.settle(inst + "/last_operation?plan_id=" + plan_tosca) == "succeeded");
  auto last = b.call("GET", inst + "/last_operation?operation=" + op);
  CHECK(last.json.at("description") == "updating succeeded");

  auto updated = b.call("GET", inst);
  REQUIRE(updated.status == 200);
  CHECK(updated.json.at("plan_id") == plan_heat.c_str());
  CHECK(updated.json.at("parameters").at("template").as_string().find("rt-2") != std::string::npos);
  // The update replaced the provisioning's infrastructure and deleted it.
  httplib::Client api("127.0.0.1", b.port);
  auto made = to_reply(api.Get(("/api/v1/operations/" + prov).c_str()));
  auto changed = to_reply(api.Get(("/api/v1/operations/" + op).c_str()));
  REQUIRE(made.status == 200);
  REQUIRE(changed.status == 200);
  auto old_infra = made.json.at("data").at("infrastructure").at("infrastructure_id");
  auto new_infra = changed.json.at("data").at("runtime").at("infrastructure_id");
  CHECK(changed.json.at("data").at("previous").at("infrastructure_id") == old_infra);
  CHECK(changed.json.at("data").as_object().contains("deletion"));
  CHECK(new_infra != old_infra);
  CHECK(changed.json.at("data").at("outputs").at("url") == "http://rt-2");
  // The deprovisioning names the plan now, and deletes the new runtime.
  CHECK(b.call("DELETE", async + "&service_id=" + svc + "&plan_id=" + plan_tosca).status == 400);
  auto gone = b.call("DELETE", async + "&service_id=" + svc + "&plan_id=" + plan_heat);
  REQUIRE(gone.status == 202);
  CHECK(b.settle(inst + "/last_operation") == "succeeded");
  auto removed = to_reply(
    api.Get(("/api/v1/operations/" + std::string(gone.json.at("operation").as_string())).c_str()));
  CHECK(removed.json.at("data").at("target").at("infrastructure_id") == new_infra);
  auto after = b.call("GET", inst);
  CHECK(after.status == 404);
  auto late = b.call("PATCH", async, patch_request(plan_tosca, ""));
  CHECK(late.status == 404);
}
