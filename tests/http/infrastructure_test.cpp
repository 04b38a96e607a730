// The Infrastructure API (/api/infrastructure/*) against a scripted driver:
// bodies and statuses exactly as the Ignition Infrastructure API
// (vim_infrastructure.yaml, Ignition 1.1.0) says, the monitor started once
// per request id, credentials never shown.

#include <catch2/catch.hpp>

#include "http/infrastructure_routes.hpp"
#include "tests/http/fake_driver.hpp"
#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;
namespace json = boost::json;

namespace {

const std::string base = "/api/infrastructure";
const std::string secret = "pw-Zq81-credential";

std::string location() {
  return R"("deploymentLocation":{"name":"cloud-a","type":"Openstack",)"
         R"("properties":{"username":"ann","password":")"
         + secret + R"("}})";
}

std::string create_body() {
  return "{" + location()
         + R"(,"template":"heat_template_version: 2018-08-31","templateType":"HEAT",)"
           R"("properties":{"propA":{"value":"a","type":"string"}},)"
           R"("systemProperties":{"resourceName":{"value":"net-1","type":"string"}},)"
           R"("someFutureField":42})";
}

std::string delete_body() {
  return R"({"infrastructureId":"infra-1",)" + location() + "}";
}

std::string query_body() {
  return R"({"infrastructureId":"infra-1","requestId":"req-1",)" + location() + "}";
}

std::string find_body() {
  return R"({"instanceName":"net-1","template":"t","templateType":"TOSCA",)" + location() + "}";
}

// The spec's ErrorResponse, and nothing else.
void check_error(const reply& r, int status) {
  INFO(r.body);
  REQUIRE(r.status == status);
  REQUIRE(r.json.is_object());
  auto& o = r.json.as_object();
  CHECK(o.size() == 2);
  CHECK(o.at("status") == status);
  CHECK(o.at("localizedMessage").is_string());
  CHECK(r.header("Content-Type").rfind("application/json", 0) == 0);
}

std::string message(const reply& r) {
  return std::string(r.json.at("localizedMessage").as_string());
}

struct infra_fixture {
  std::shared_ptr<fake_driver> drv = std::make_shared<fake_driver>();
  http_fixture fx{http_fixture::default_config(), drv};

  reply post(const std::string& route, const std::string& body) {
    return fx.post(base + "/" + route, body);
  }

  // The operations of the monitor workflow, newest first.
  json::array monitors() {
    auto r = fx.get("/api/v1/operations?workflow=infrastructure_task&limit=500");
    REQUIRE(r.status == 200);
    return r.json.at("items").as_array();
  }
};

} // namespace

TEST_CASE("create answers 202 {infrastructureId, requestId} and starts the "
          "monitor",
          "[http][infra]") {
  infra_fixture f;
  f.drv->set_accepted({"infra-7", "req-7"});
  auto r = f.post("create", create_body());
  INFO(r.body);
  REQUIRE(r.status == 202);
  CHECK(r.json == json::parse(R"({"infrastructureId":"infra-7","requestId":"req-7"})"));
  // The driver gets the request as sent, credentials included.
  auto req = f.drv->last_create();
  CHECK(req.template_text == "heat_template_version: 2018-08-31");
  CHECK(req.template_type == "HEAT");
  CHECK(req.location.name == "cloud-a");
  CHECK(req.location.type == "Openstack");
  CHECK(req.location.properties.at("password") == secret.c_str());
  CHECK(req.properties.at("propA").at("value") == "a");
  CHECK(req.system_properties.at("resourceName").at("value") == "net-1");
  auto ops = f.monitors();
  REQUIRE(ops.size() == 1);
  auto& input = ops[0].at("input").as_object();
  CHECK(input.at("infrastructure_id") == "infra-7");
  CHECK(input.at("request_id") == "req-7");
  CHECK(input.at("kind") == "create");
  CHECK(input.at("deployment_location").at("name") == "cloud-a");
  CHECK(input.at("deployment_location").at("type") == "Openstack");
  CHECK(input.at("deployment_location").at("properties") == "***");
  // The monitor was started under the documented idempotency key: starting
  // it again with that key replays the same operation.
  start_request again;
  again.workflow = "infrastructure_task";
  again.idempotency_key = http::infrastructure_task_key("req-7");
  CHECK(again.idempotency_key == "infrastructure-task:req-7");
  again.input = {
    {"infrastructure_id", "infra-7"},
    {"request_id", "req-7"},
    {"deployment_location",
     json::object{{"name", "cloud-a"},
                  {"type", "Openstack"},
                  {"properties", json::object{{"username", "ann"}, {"password", secret}}}}},
    {"kind", "create"}};
  auto replay = f.fx.eng.start(again);
  REQUIRE(replay);
  CHECK_FALSE(replay->created);
  CHECK(replay->op.id == std::string(ops[0].at("id").as_string()));
}

TEST_CASE("the same request id is monitored once however often it is "
          "answered",
          "[http][infra]") {
  infra_fixture f;
  f.drv->set_accepted({"infra-1", "req-1"});
  REQUIRE(f.post("create", create_body()).status == 202);
  REQUIRE(f.post("create", create_body()).status == 202);
  CHECK(f.drv->calls().create == 2);
  CHECK(f.monitors().size() == 1);
  f.drv->set_accepted({"infra-2", "req-2"});
  REQUIRE(f.post("create", create_body()).status == 202);
  CHECK(f.monitors().size() == 2);
}

TEST_CASE("delete answers 202 and starts a delete monitor", "[http][infra]") {
  infra_fixture f;
  f.drv->set_accepted({"infra-1", "req-del"});
  auto r = f.post("delete", delete_body());
  INFO(r.body);
  REQUIRE(r.status == 202);
  CHECK(r.json == json::parse(R"({"infrastructureId":"infra-1","requestId":"req-del"})"));
  CHECK(f.drv->last_infrastructure_id() == "infra-1");
  CHECK(f.drv->last_location().properties.at("password") == secret.c_str());
  auto ops = f.monitors();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].at("input").at("kind") == "delete");
  CHECK(ops[0].at("input").at("request_id") == "req-del");
}

TEST_CASE("query answers the task as an InfrastructureTask", "[http][infra]") {
  infra_fixture f;
  infra::task t;
  t.infrastructure_id = "infra-1";
  t.request_id = "req-1";
  SECTION("in progress: no failureDetails") {
    f.drv->set_task(t);
    auto r = f.post("query", query_body());
    REQUIRE(r.status == 200);
    CHECK(r.json
          == json::parse(R"({"infrastructureId":"infra-1","requestId":"req-1",)"
                         R"("status":"IN_PROGRESS","outputs":{}})"));
    CHECK(f.drv->last_infrastructure_id() == "infra-1");
    CHECK(f.drv->last_request_id() == "req-1");
    CHECK(f.drv->last_location().name == "cloud-a");
  }
  SECTION("complete: the outputs") {
    t.status = infra::task_status::complete;
    t.outputs = {{"ip", "10.0.0.1"}};
    f.drv->set_task(t);
    auto r = f.post("query", query_body());
    REQUIRE(r.status == 200);
    CHECK(r.json.at("status") == "COMPLETE");
    CHECK(r.json.at("outputs").at("ip") == "10.0.0.1");
    CHECK_FALSE(r.json.as_object().contains("failureDetails"));
  }
  SECTION("failed: failureDetails") {
    t.status = infra::task_status::failed;
    t.failure = infra::failure_details{infra::failure_code::insufficient_capacity, "no room"};
    f.drv->set_task(t);
    auto r = f.post("query", query_body());
    REQUIRE(r.status == 200);
    CHECK(r.json.at("status") == "FAILED");
    CHECK(r.json.at("failureDetails")
          == json::parse(R"({"failureCode":"INSUFFICIENT_CAPACITY","description":"no room"})"));
  }
  CHECK(f.monitors().empty());
}

TEST_CASE("find answers {result: null} or the match", "[http][infra]") {
  infra_fixture f;
  auto r = f.post("find", find_body());
  REQUIRE(r.status == 200);
  CHECK(r.body == R"({"result":null})");
  CHECK(f.drv->last_instance_name() == "net-1");
  CHECK(f.drv->last_template_type() == "TOSCA");
  f.drv->set_found(infra::found{"infra-9", {{"ip", "10.0.0.9"}}});
  r = f.post("find", find_body());
  REQUIRE(r.status == 200);
  CHECK(r.json
        == json::parse(R"({"result":{"infrastructureId":"infra-9","outputs":{"ip":"10.0.0.9"}}})"));
}

TEST_CASE("bad bodies are 400 naming the field; the driver is not asked", "[http][infra]") {
  infra_fixture f;
  struct bad_case {
    const char* route;
    std::string body;
    const char* says;
  };
  auto loc = location();
  std::vector<bad_case> cases{
    {"create", "{", "JSON"},
    {"create", "", "JSON"},
    {"create", "[]", "JSON object"},
    {"create", R"({"template":"t","templateType":"T"})", "'deploymentLocation'"},
    {"create", "{" + loc + R"(,"templateType":"T"})", "'template'"},
    {"create", "{" + loc + R"(,"template":"t"})", "'templateType'"},
    {"create", "{" + loc + R"(,"template":7,"templateType":"T"})", "'template' must be a string"},
    {"create", "{" + loc + R"(,"template":"t","templateType":"T","properties":[]})",
     "'properties' must be an object"},
    {"create", R"({"deploymentLocation":{"type":"x"},"template":"t","templateType":"T"})",
     "'deploymentLocation.name'"},
    {"create", R"({"deploymentLocation":"cloud","template":"t","templateType":"T"})",
     "'deploymentLocation' must be an object"},
    {"create",
     R"({"deploymentLocation":{"name":"a","properties":"pw"},"template":"t","templateType":"T"})",
     "'deploymentLocation.properties' must be an object"},
    {"delete", "{" + loc + "}", "'infrastructureId'"},
    {"delete", R"({"infrastructureId":"i"})", "'deploymentLocation'"},
    {"delete", R"({"infrastructureId":null,)" + loc + "}", "'infrastructureId' must be a string"},
    {"query", R"({"infrastructureId":"i",)" + loc + "}", "'requestId'"},
    {"query", R"({"requestId":"r",)" + loc + "}", "'infrastructureId'"},
    {"query", R"({"infrastructureId":"i","requestId":"r"})", "'deploymentLocation'"},
    {"find", R"({"instanceName":5,"template":"t","templateType":"T",)" + loc + "}",
     "'instanceName' must be a string"},
    {"find", R"({"instanceName":"n","templateType":"T",)" + loc + "}", "'template'"},
  };
  for (auto& c : cases) {
    INFO(c.route << " " << c.body);
    auto r = f.post(c.route, c.body);
    check_error(r, 400);
    CHECK_THAT(message(r), Catch::Contains(c.says));
    CHECK(r.body.find(secret) == std::string::npos);
  }
  auto n = f.drv->calls();
  CHECK(n.create + n.remove + n.get_task + n.find == 0);
  CHECK(f.monitors().empty());
}

TEST_CASE("an empty template is an invalid template", "[http][infra]") {
  infra_fixture f;
  for (auto route : {"create", "find"}) {
    auto r = f.post(route, "{" + location() + R"(,"template":" \n","templateType":"TOSCA"})");
    check_error(r, 400);
    CHECK_THAT(message(r), Catch::Contains("Template included in request was invalid"));
  }
  CHECK(f.drv->calls().create == 0);
  CHECK(f.drv->calls().find == 0);
}

TEST_CASE("driver errors map to the spec's statuses", "[http][infra]") {
  infra_fixture f;
  struct mapping {
    infra::error_kind kind;
    int status;
  };
  const mapping table[] = {
    {infra::error_kind::invalid_template, 400},  {infra::error_kind::not_found, 400},
    {infra::error_kind::request_not_found, 400}, {infra::error_kind::unreachable_location, 400},
    {infra::error_kind::temporary, 503},         {infra::error_kind::infrastructure_error, 500},
  };
  const std::pair<const char*, std::string> routes[] = {
    {"create", create_body()},
    {"delete", delete_body()},
    {"query", query_body()},
    {"find", find_body()},
  };
  for (auto& m : table) {
    std::string text = "driver says " + std::string(to_string(m.kind));
    f.drv->fail_with(infra::error{m.kind, text});
    for (auto& [route, body] : routes) {
      INFO(route << " " << to_string(m.kind));
      auto r = f.post(route, body);
      check_error(r, m.status);
      CHECK(message(r) == text);
      CHECK((r.header("Retry-After") == "1") == (m.status == 503));
    }
  }
  CHECK(f.monitors().empty());
}

TEST_CASE("router errors under /api/infrastructure use the spec's body", "[http][infra]") {
  infra_fixture f;
  auto c = f.fx.client();
  for (auto route : {"create", "delete", "query", "find"}) {
    auto path = base + "/" + route;
    auto get = to_reply(c->Get(path));
    check_error(get, 405);
    CHECK(get.header("Allow") == "POST");
    auto put = to_reply(c->Put(path, "{}", "application/json"));
    check_error(put, 405);
    CHECK(put.header("Allow") == "POST");
    check_error(f.fx.post(path, "{}", "text/plain"), 415);
  }
  check_error(f.fx.post(base + "/nope", "{}"), 404);
  check_error(f.post("create", std::string(f.fx.scfg.lim.max_body_bytes + 1, ' ')), 413);
  // The rest of the API keeps its own error body.
  CHECK(f.fx.get("/api/v1/operations/missing").error_code() == "not_found");
}

TEST_CASE("location credentials never appear in answers or operations", "[http][infra]") {
  infra_fixture f;
  std::vector<reply> seen;
  f.drv->set_accepted({"infra-1", "req-1"});
  seen.push_back(f.post("create", create_body()));
  f.drv->set_accepted({"infra-1", "req-2"});
  seen.push_back(f.post("delete", delete_body()));
  seen.push_back(f.post("query", query_body()));
  seen.push_back(f.post("find", find_body()));
  seen.push_back(f.post("create", "{" + location() + R"(,"template":1,"templateType":"T"})"));
  auto ops = f.monitors();
  REQUIRE(ops.size() == 2);
  for (auto& op : ops) {
    auto id = std::string(op.at("id").as_string());
    seen.push_back(f.fx.get("/api/v1/operations/" + id));
    CHECK(f.fx.finish(id) == "succeeded");
    seen.push_back(f.fx.get("/api/v1/operations/" + id));
  }
  seen.push_back(f.fx.get("/api/v1/operations?workflow=infrastructure_task"));
  seen.push_back(f.fx.get("/api/v1/events?after=0&limit=1000"));
  for (auto& r : seen) {
    INFO(r.body);
    CHECK(r.status != 0);
    CHECK(r.body.find(secret) == std::string::npos);
  }
  CHECK(seen[0].status == 202);
  CHECK(seen[5].json.at("input").at("deployment_location").at("properties") == "***");
}

TEST_CASE("a task the engine cannot monitor is 503 and says it is not "
          "monitored",
          "[http][infra]") {
  infra_fixture f;
  f.drv->set_accepted({"infra-5", "req-5"});
  f.fx.eng.shutdown();
  auto r = f.post("create", create_body());
  check_error(r, 503);
  CHECK(r.header("Retry-After") == "1");
  CHECK_THAT(message(r), Catch::Contains("req-5") && Catch::Contains("not monitored"));
  CHECK(r.body.find(secret) == std::string::npos);
  CHECK(f.drv->calls().create == 1);
  auto warned = f.fx.warnings->all();
  REQUIRE(warned.size() == 1);
  CHECK_THAT(warned[0], Catch::Contains("req-5"));
  CHECK(warned[0].find(secret) == std::string::npos);
}
