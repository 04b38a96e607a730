// The service broker's bindings on the real binary, written from OSB
// 2.17's "Binding", "Fetching a Service Binding", "Unbinding" and
// "Polling Last Operation for Service Bindings". The credential a binding
// generates is shown to the platform and nowhere else: not in the engine's
// API, its events, the server's log, or the database file.

#include <signal.h>

#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "http/osb_catalog.hpp"
#include "tests/http/osb_support.hpp"
#include "tests/http/secrets_support.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

const std::string bind_svc = http::osb_service_id;
const std::string bind_plan = osb_tosca_plan;
const std::string binding_path =
  "/v2/service_instances/{instance_id}/service_bindings/{binding_id}";

std::string bind_request(const std::string& plan, const std::string& extra = "") {
  return R"({"service_id":")" + bind_svc + R"(","plan_id":")" + plan + "\"" + extra
         + R"(,"bind_resource":{"app_guid":"app-1"}})";
}

std::string store_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Provisions instance `id`, binds `id-b`, and returns the credential's
// password.
std::string bound_password(const broker_process& b, const std::string& id) {
  auto inst = "/v2/service_instances/" + id;
  auto prov = b.call("PUT", inst + "?accepts_incomplete=true",
                     R"({"service_id":")" + bind_svc + R"(","plan_id":")" + bind_plan
                       + R"(","parameters":{"template":"outputs.url: http://)" + id
                       + R"(\nlatency_ms: 100","deployment_location":{"name":"dc1"}}})");
  REQUIRE(prov.status == 202);
  REQUIRE(b.settle(inst + "/last_operation") == "succeeded");
  auto bnd = inst + "/service_bindings/" + id + "-b";
  REQUIRE(b.call("PUT", bnd + "?accepts_incomplete=true", bind_request(bind_plan)).status == 202);
  REQUIRE(b.settle(bnd + "/last_operation") == "succeeded");
  auto got = b.call("GET", bnd);
  REQUIRE(got.status == 200);
  return std::string(got.json.at("credentials").at("password").as_string());
}

} // namespace

TEST_CASE("broker: bind, fetch and unbind; the credential only in the answer", "[http][osb]") {
  broker_process b;
  INFO(b.srv.err);
  REQUIRE(b.port > 0);
  auto inst = std::string("/v2/service_instances/rt-b");
  auto prov =
    b.call("PUT", inst + "?accepts_incomplete=true",
           R"({"service_id":")" + bind_svc + R"(","plan_id":")" + bind_plan
             + R"(","parameters":{"template":"outputs.url: http://rt-b.example\nlatency_ms: 200",)"
             + R"("deployment_location":{"name":"dc1"}}})");
  REQUIRE(prov.status == 202);
  CHECK(b.settle(inst + "/last_operation") == "succeeded");

  auto bnd = inst + "/service_bindings/b-1";
  auto async = bnd + "?accepts_incomplete=true";
  auto sync = b.call("PUT", bnd, bind_request(bind_plan));
  CHECK(sync.status == 422);
  CHECK(sync.json.at("error") == "AsyncRequired");
  osb_documented(sync, binding_path, "put");
  for (auto& body :
       {bind_request(osb_heat_plan), bind_request(bind_plan, R"(,"parameters":{"x":1})"),
        std::string(R"({"service_id":")") + bind_svc + "\"}", std::string("[]")}) {
    auto r = b.call("PUT", async, body);
    INFO(body << " -> " << r.body);
    CHECK(r.status == 400);
    osb_documented(r, binding_path, "put");
  }
  auto nowhere =
    b.call("PUT", "/v2/service_instances/nope/service_bindings/b-1?accepts_incomplete=true",
           bind_request(bind_plan));
  CHECK(nowhere.status == 404);

  auto made = b.call("PUT", async, bind_request(bind_plan));
  REQUIRE(made.status == 202);
  osb_documented(made, binding_path, "put");
  // 202 never carries the credential.
  CHECK(!made.json.as_object().contains("credentials"));
  auto op = std::string(made.json.at("operation").as_string());
  auto poll = bnd + "/last_operation?operation=" + op + "&service_id=" + bind_svc;
  CHECK(b.settle(poll) == "succeeded");
  auto polled = b.call("GET", poll);
  osb_documented(polled, binding_path + "/last_operation", "get");
  CHECK(polled.json.at("description") == "binding succeeded");

  auto got = b.call("GET", bnd);
  REQUIRE(got.status == 200);
  osb_documented(got, binding_path, "get");
  auto& creds = got.json.at("credentials");
  CHECK(creds.at("url") == "http://rt-b.example");
  CHECK(creds.at("username") == "binding-b-1");
  auto password = std::string(creds.at("password").as_string());
  CHECK(password.size() == 32);
  // The same PUT again: the binding as it is; another request: 409.
  auto again = b.call("PUT", async, bind_request(bind_plan));
  CHECK(again.status == 200);
  osb_documented(again, binding_path, "put");
  CHECK(again.json.at("credentials").at("password") == password.c_str());
  auto other = b.call("PUT", async, bind_request(bind_plan, R"(,"app_guid":"app-2")"));
  CHECK(other.status == 409);
  osb_documented(other, binding_path, "put");
  // Two bindings, two credentials.
  auto second =
    b.call("PUT", inst + "/service_bindings/b-2?accepts_incomplete=true", bind_request(bind_plan));
  REQUIRE(second.status == 202);
  CHECK(b.settle(inst + "/service_bindings/b-2/last_operation") == "succeeded");
  auto got2 = b.call("GET", inst + "/service_bindings/b-2");
  REQUIRE(got2.status == 200);
  auto password2 = std::string(got2.json.at("credentials").at("password").as_string());
  CHECK(password2 != password);

  // The engine's API shows the operation, its data and events, masked.
  httplib::Client api("127.0.0.1", b.port);
  auto shown = to_reply(api.Get(("/api/v1/operations/" + op).c_str()));
  REQUIRE(shown.status == 200);
  CHECK(shown.body.find(password) == std::string::npos);
  CHECK(shown.json.at("data").at("password") == "***");
  auto events = to_reply(api.Get(("/api/v1/operations/" + op + "/events").c_str()));
  REQUIRE(events.status == 200);
  CHECK(events.body.find(password) == std::string::npos);

  // Unbinding.
  auto del = bnd + "?service_id=" + bind_svc + "&plan_id=" + bind_plan;
  auto bad = b.call("DELETE", bnd + "?accepts_incomplete=true");
  CHECK(bad.status == 400);
  osb_documented(bad, binding_path, "delete");
  auto needs_async = b.call("DELETE", del);
  CHECK(needs_async.status == 422);
  CHECK(needs_async.json.at("error") == "AsyncRequired");
  auto unbound = b.call("DELETE", del + "&accepts_incomplete=true");
  REQUIRE(unbound.status == 202);
  osb_documented(unbound, binding_path, "delete");
  auto uop = std::string(unbound.json.at("operation").as_string());
  CHECK(uop != op);
  // Without ?operation= the binding's newest: its removal.
  CHECK(b.settle(bnd + "/last_operation") == "succeeded");
  CHECK(b.call("GET", bnd + "/last_operation?operation=" + uop).json.at("description")
        == "unbinding succeeded");
  auto twice = b.call("DELETE", del + "&accepts_incomplete=true");
  CHECK(twice.status == 410);
  osb_documented(twice, binding_path, "delete");
  auto fetched = b.call("GET", bnd);
  CHECK(fetched.status == 404);
  osb_documented(fetched, binding_path, "get");
  CHECK(b.call("PUT", async, bind_request(bind_plan)).status == 409);
  // Bindings that never were.
  auto none = inst + "/service_bindings/none";
  CHECK(b.call("DELETE",
               none + "?accepts_incomplete=true&service_id=" + bind_svc + "&plan_id=" + bind_plan)
          .status
        == 410);
  CHECK(b.call("GET", none).status == 404);
  auto no_poll = b.call("GET", none + "/last_operation");
  CHECK(no_poll.status == 404);
  osb_documented(no_poll, binding_path + "/last_operation", "get");
  CHECK(b.call("GET", inst + "/service_bindings/b-2/last_operation?operation=" + op).status == 400);

  // Neither the log nor the database holds a credential in plaintext.
  REQUIRE(::kill(b.srv.pid, SIGTERM) == 0);
  CHECK(b.srv.wait_exit(std::chrono::seconds(30)) == 0);
  b.srv.await_output("stopped", std::chrono::seconds(5));
  CHECK(b.srv.err.find(password) == std::string::npos);
  CHECK(b.srv.err.find(password2) == std::string::npos);
  auto bytes = store_bytes(b.dir.path + "/sw.db") + store_bytes(b.dir.path + "/sw.db-wal");
  // The files read are the store's: the binding's other fields are there.
  CHECK(bytes.find("binding-b-1") != std::string::npos);
  CHECK(bytes.find(password) == std::string::npos);
  CHECK(bytes.find(password2) == std::string::npos);
}

TEST_CASE("broker on PostgreSQL: a binding's credential is not in the rows", "[http][osb][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  temp_dir keys;
  write_private(keys.path + "/keys", new_key_line("osb"));
  broker_process b({"--store", schema->uri(), "--secret-key-file", keys.path + "/keys"});
  INFO(b.srv.err);
  REQUIRE(b.port > 0);
  auto password = bound_password(b, "rt-pg");
  CHECK(password.size() == 32);
  REQUIRE(::kill(b.srv.pid, SIGTERM) == 0);
  CHECK(b.srv.wait_exit(std::chrono::seconds(30)) == 0);
  CHECK(b.srv.err.find(password) == std::string::npos);
  auto base = pg_test_uri();
  REQUIRE(base);
  auto rows = run_status("/usr/lib/postgresql/15/bin/pg_dump --no-owner --schema=" + schema->name()
                         + " '" + *base + "'");
  REQUIRE(rows.find("exit=0") != std::string::npos);
  CHECK(rows.find("binding-rt-pg-b") != std::string::npos);
  CHECK(rows.find(password) == std::string::npos);
}
