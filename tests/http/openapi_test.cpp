#include <future>
#include <set>
#include <thread>

#include <catch2/catch.hpp>

#include "http/openapi.hpp"
#include "tests/http/fake_driver.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/openapi_check.hpp"
#include "tests/http/osb_support.hpp"

using namespace stepwise;
using namespace stepwise::test;
namespace json = boost::json;

TEST_CASE("the OpenAPI document is served and lists exactly our routes", "[http][openapi]") {
  // With a driver and the service broker, so that every API is mounted.
  temp_dir creds;
  http_fixture fx{http_fixture::default_config(), std::make_shared<fake_driver>(),
                  broker_mount(creds.path)};
  auto r = fx.get("/api/v1/openapi.json");
  REQUIRE(r.status == 200);
  CHECK(r.json == http::openapi_document());
  CHECK(std::string(r.json.at("openapi").as_string()).rfind("3.", 0) == 0);
  std::set<std::pair<std::string, std::string>> documented;
  for (auto& p : r.json.at("paths").as_object())
    for (auto& m : p.value().as_object())
      documented.emplace(std::string(m.key()), std::string(p.key()));
  std::set<std::pair<std::string, std::string>> served;
  for (auto& route : fx.srv->routes().routes()) {
    std::string m = route.method;
    for (auto& c : m)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    served.emplace(m, route.pattern);
  }
  CHECK(documented == served);
}

TEST_CASE("every documented route answers as documented", "[http][openapi]") {
  auto drv = std::make_shared<fake_driver>();
  infra::task failed{"i1",
                     "r1",
                     infra::task_status::failed,
                     infra::failure_details{infra::failure_code::infrastructure_error, "x"},
                     {}};
  drv->set_task(failed);
  drv->set_found(infra::found{"i1", {{"ip", "10.0.0.1"}}});
  auto cfg = http_fixture::default_config();
  // Two sinks: one this process delivers, one nobody holds yet.
  cfg.sinks = [] {
    outbox::sink_status held;
    held.name = "hook";
    held.kind = "webhook";
    held.destination = "https://example.com/hook?***";
    held.events = {"operation_succeeded"};
    held.cursor = 7;
    held.lag = 2;
    held.delivered = 7;
    held.failed = 1;
    held.last_error = "webhook https://example.com/hook?*** answered 500";
    held.last_delivery_at = from_micros(1'795'333'200'000'000);
    held.holder = "vm:1:ab";
    held.held_here = true;
    outbox::sink_status idle;
    idle.name = "bus";
    idle.kind = "kafka";
    idle.destination = "b1:9092/t";
    return caf::expected<std::vector<outbox::sink_status>>{
      std::vector<outbox::sink_status>{held, idle}};
  };
  http_fixture fx{cfg, drv};
  auto& doc = http::openapi_document();
  validator val{doc};
  auto quick = fx.start_op("quick");
  REQUIRE(fx.finish(quick) == "succeeded");
  auto sleepy = fx.start_op("sleepy");
  auto signaled = fx.start_op("sleepy");
  // Paused by the pause route, then resumed by the resume route (the
  // document lists pause first).
  auto pausable = fx.start_op("sleepy");
  REQUIRE(fx.await_event(pausable, "operation_waiting"));
  auto skippable = fx.start_op("sleepy");
  REQUIRE(fx.await_event(skippable, "operation_waiting"));
  flip_allowed = false;
  auto flip = fx.start_op("flip");
  REQUIRE(fx.finish(flip) == "failed");
  // Schedules: one read, replaced and deleted on its own path, one paused,
  // resumed and triggered; the create makes a third.
  auto schedule_body = [](const char* id) {
    return std::string(R"({"id":")") + id + R"(","workflow":"quick","input":{},"every":"1h"})";
  };
  REQUIRE(fx.post("/api/v1/schedules", schedule_body("doc-crud")).status == 201);
  REQUIRE(fx.post("/api/v1/schedules", schedule_body("doc")).status == 201);
  // Two tasks taken: one beaten and completed, one failed.
  fx.start_op("billed");
  fx.start_op("billed");
  std::vector<std::string> tokens;
  for (int i = 0; i < 100 && tokens.size() < 2; ++i) {
    auto got =
      fx.post("/api/v1/tasks/poll", R"({"queue":"billing","worker":"doc","wait":"100ms"})");
    REQUIRE(got.status == 200);
    for (auto& t : got.json.at("tasks").as_array())
      tokens.emplace_back(t.at("token").as_string());
  }
  REQUIRE(tokens.size() == 2);
  auto c = fx.client();
  walked_ops walked{quick,     sleepy,    signaled,  flip, pausable,
                    tokens[0], tokens[1], skippable, "nap"};
  for (auto& p : doc.at("paths").as_object()) {
    std::string path(p.key());
    for (auto& m : p.value().as_object()) {
      std::string method(m.key());
      auto target = walk_target(path, walked, "demo", method);
      // The service broker's answers are checked by its own tests.
      if (path.rfind("/v2/", 0) == 0)
        continue;
      reply r;
      if (path == "/api/v1/events/stream") {
        // Read the head of the endless stream, then hang up.
        httplib::Headers hs;
        std::string ct;
        int status = 0;
        c->Get(
          target, hs,
          [&](const httplib::Response& res) {
            status = res.status;
            ct = res.get_header_value("Content-Type");
            return true;
          },
          [&](const char*, size_t) { return false; });
        r.status = status;
        r.headers.emplace("Content-Type", ct);
      } else if (path == "/readyz") {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while ((r = fx.get(target)).status != 200 && std::chrono::steady_clock::now() < deadline)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
      } else if (method == "get") {
        r = to_reply(c->Get(target));
      } else if (method == "put") {
        r = to_reply(c->Put(target, walk_put_body(path, "quick"), "application/json"));
      } else if (method == "delete") {
        r = to_reply(c->Delete(target));
      } else {
        std::string loc = R"("deploymentLocation":{"name":"l","properties":{}})";
        std::string body =
          path == "/api/v1/operations"             ? R"({"workflow":"quick","input":{"x":1}})"
          : path == "/api/v1/schedules"            ? schedule_body("doc-new")
          : path == "/api/v1/tasks/poll"           ? R"({"queue":"billing","worker":"doc"})"
          : path == "/api/v1/operations/{id}/skip" ? walk_skip_body(walked)
          : path == "/api/v1/tasks/{token}/fail"   ? R"({"error":"declined"})"
          : path == "/api/v1/tasks/complete"       ? R"({"tasks":[{"token":"gone.1.x"}]})"
          : path == "/api/infrastructure/create"
            ? "{" + loc + R"(,"template":"t","templateType":"TOSCA"})"
          : path == "/api/infrastructure/delete" ? R"({"infrastructureId":"i1",)" + loc + "}"
          : path == "/api/infrastructure/query"
            ? R"({"infrastructureId":"i1","requestId":"r1",)" + loc + "}"
          : path == "/api/infrastructure/find"
            ? R"({"instanceName":"n","template":"t","templateType":"T",)" + loc + "}"
            : "";
        r = to_reply(c->Post(target, body, "application/json"));
      }
      CHECK((r.status / 100 == 2 || r.status == 302));
      check_documented(val, doc, path, method, r);
    }
  }
}

TEST_CASE("documented error answers match the Error schema", "[http][openapi]") {
  auto drv = std::make_shared<fake_driver>();
  http_fixture fx{http_fixture::default_config(), drv};
  auto& doc = http::openapi_document();
  validator val{doc};
  auto ops = std::string("/api/v1/operations");
  auto sleepy = fx.start_op("sleepy");
  REQUIRE(fx.await_event(sleepy, "operation_waiting"));
  REQUIRE(fx.post(ops + "/" + sleepy + "/cancel", "").status == 202);
  REQUIRE(fx.await_event(sleepy, "operation_canceled"));
  auto c = fx.client();
  check_documented(val, doc, ops, "post", fx.post(ops, "{"));
  check_documented(val, doc, ops, "post", fx.post(ops, "{}", "text/plain"));
  check_documented(val, doc, ops, "post", fx.post(ops, std::string(2 << 20, ' ')));
  check_documented(val, doc, ops, "post", to_reply(c->Delete(ops)));
  check_documented(val, doc, ops, "get", fx.get(ops + "?limit=x"));
  check_documented(val, doc, ops + "/{id}", "get", fx.get(ops + "/missing"));
  check_documented(val, doc, ops + "/{id}/cancel", "post",
                   fx.post(ops + "/" + sleepy + "/cancel", ""));
  check_documented(val, doc, ops + "/{id}/retry", "post",
                   fx.post(ops + "/" + sleepy + "/retry", ""));
  check_documented(val, doc, ops + "/{id}/pause", "post",
                   fx.post(ops + "/" + sleepy + "/pause", ""));
  check_documented(val, doc, ops + "/{id}/resume", "post",
                   fx.post(ops + "/" + sleepy + "/resume", ""));
  check_documented(val, doc, ops + "/{id}/pause", "post", fx.post(ops + "/missing/pause", ""));
  auto signals = ops + "/{id}/signals/{name}";
  check_documented(val, doc, signals, "post", fx.post(ops + "/missing/signals/go", "{}"));
  check_documented(val, doc, signals, "post", fx.post(ops + "/" + sleepy + "/signals/go", "{}"));
  check_documented(val, doc, signals, "post", fx.post(ops + "/" + sleepy + "/signals/a%20b", "{}"));
  check_documented(val, doc, signals, "post", fx.post(ops + "/" + sleepy + "/signals/go", "[1]"));
  check_documented(val, doc, "/api/v1/workflows/{name}", "get", fx.get("/api/v1/workflows/none"));
  auto sch = std::string("/api/v1/schedules");
  auto one = sch + "/{id}";
  check_documented(val, doc, sch, "post", fx.post(sch, "{"));
  check_documented(val, doc, sch, "post", fx.post(sch, "{}", "text/plain"));
  REQUIRE(fx.post(sch, R"({"id":"s","workflow":"quick","input":{},"every":"1h"})").status == 201);
  check_documented(val, doc, sch, "post",
                   fx.post(sch, R"({"id":"s","workflow":"quick","input":{},"every":"2h"})"));
  check_documented(val, doc, sch, "get", fx.get(sch + "?x=1"));
  check_documented(val, doc, one, "get", fx.get(sch + "/missing"));
  check_documented(val, doc, one, "put", fx.put(sch + "/s", "{}", "text/plain"));
  check_documented(val, doc, one, "put", fx.put(sch + "/s", R"({"workflow":"quick"})"));
  check_documented(val, doc, one, "delete", fx.del(sch + "/missing"));
  check_documented(val, doc, one + "/pause", "post", fx.post(sch + "/missing/pause", ""));
  check_documented(val, doc, one + "/resume", "post", fx.post(sch + "/s/resume", "[]"));
  check_documented(val, doc, one + "/trigger", "post", fx.post(sch + "/missing/trigger", ""));
  check_documented(val, doc, "/api/v1/events", "get", fx.get("/api/v1/events?wait=100"));
  auto create = std::string("/api/infrastructure/create");
  auto good = R"({"deploymentLocation":{"name":"l"},"template":"t","templateType":"T"})";
  check_documented(val, doc, create, "post", fx.post(create, "{"));
  check_documented(val, doc, create, "post", fx.post(create, good, "text/plain"));
  check_documented(val, doc, create, "post", fx.post(create, std::string(2 << 20, ' ')));
  check_documented(val, doc, create, "post", to_reply(c->Get(create)));
  drv->fail_with(infra::error{infra::error_kind::temporary, "busy"});
  check_documented(val, doc, create, "post", fx.post(create, good));
  drv->fail_with(infra::error{infra::error_kind::infrastructure_error, "broken"});
  check_documented(val, doc, create, "post", fx.post(create, good));
}
