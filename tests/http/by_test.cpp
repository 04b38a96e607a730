// Who did what: every event a request causes carries `by`, the caller as
// the gateway knows it (the name of its token, `anonymous` without tokens,
// `osb:<user>` for the broker), in the API, the stream and the CLI; the
// steps' own events carry none.

#include <fstream>

#include <catch2/catch.hpp>

#include "http/osb_catalog.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/osb_support.hpp"
#include "tests/http/serve_child.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

constexpr const char* ci_token = "ci-token-0123456789abc";
constexpr const char* alice_token = "alice-token-0123456789";

http::server_config two_writers(const std::string& dir) {
  auto path = dir + "/tokens";
  std::ofstream(path) << "write ci " << ci_token << "\nwrite alice " << alice_token << "\n";
  auto auth = http::authenticator::open(path);
  REQUIRE(auth);
  auto cfg = http_fixture::default_config();
  cfg.auth = *auth;
  return cfg;
}

std::unique_ptr<httplib::Client> as(const http_fixture& fx, const char* token) {
  auto c = fx.client();
  if (token != nullptr)
    c->set_bearer_token_auth(token);
  return c;
}

/// The events of `id` (its timeline), by long polls on the log until one
/// of type `type` is there (bounded).
std::vector<boost::json::object> events_until(const http_fixture& fx, const char* token,
                                              const std::string& id, const std::string& type) {
  std::vector<boost::json::object> out;
  int64_t after = 0;
  auto c = as(fx, token);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = to_reply(c->Get("/api/v1/events?limit=1000&wait=5&after=" + std::to_string(after)));
    REQUIRE(r.status == 200);
    bool found = false;
    for (auto& e : r.json.at("items").as_array()) {
      auto& o = e.as_object();
      if (o.at("operation_id").as_string() != id.c_str())
        continue;
      out.push_back(o);
      found = found || o.at("type").as_string() == type.c_str();
    }
    after = r.json.at("next_after").as_int64();
    if (found)
      return out;
  }
  FAIL("no " + type + " event of " + id);
  return out;
}

/// The `by` of the last event of `type` in `evs` ("-": none; "": no `by`).
std::string by_of(const std::vector<boost::json::object>& evs, const std::string& type) {
  std::string by = "-";
  for (auto& e : evs)
    if (e.at("type").as_string() == type.c_str())
      by = e.contains("by") ? std::string(e.at("by").as_string()) : "";
  return by;
}

std::string started(const http_fixture& fx, const char* token, const std::string& workflow) {
  auto r = to_reply(as(fx, token)->Post(ops, R"({"workflow":")" + workflow + R"(","input":{}})",
                                        "application/json"));
  REQUIRE(r.status == 201);
  return std::string(r.json.at("id").as_string());
}

int post_as(const http_fixture& fx, const char* token, const std::string& target,
            const std::string& body = "") {
  return to_reply(as(fx, token)->Post(target, body, "application/json")).status;
}

} // namespace

TEST_CASE("each request's events name the token that asked", "[http][by]") {
  temp_dir dir;
  http_fixture fx{two_writers(dir.path)};
  // A step's own events name nobody; the start and each command name
  // their caller.
  auto id = started(fx, ci_token, "sleepy");
  auto evs = events_until(fx, ci_token, id, "operation_waiting");
  CHECK(by_of(evs, "operation_created") == "ci");
  CHECK(by_of(evs, "step_succeeded").empty());
  CHECK(by_of(evs, "operation_waiting").empty());
  auto base = ops + "/" + id;
  REQUIRE(post_as(fx, alice_token, base + "/pause") == 202);
  CHECK(by_of(events_until(fx, ci_token, id, "operation_paused"), "operation_paused") == "alice");
  REQUIRE(post_as(fx, ci_token, base + "/signals/go", R"({"payload":{"n":1}})") == 202);
  CHECK(by_of(events_until(fx, ci_token, id, "signal_received"), "signal_received") == "ci");
  REQUIRE(post_as(fx, ci_token, base + "/resume") == 202);
  CHECK(by_of(events_until(fx, ci_token, id, "operation_resumed"), "operation_resumed") == "ci");
  REQUIRE(post_as(fx, alice_token, base + "/cancel") == 202);
  evs = events_until(fx, ci_token, id, "operation_canceled");
  CHECK(by_of(evs, "operation_canceled") == "alice");
  // The timeline shows the same.
  auto tl = to_reply(as(fx, ci_token)->Get(base + "/events"));
  REQUIRE(tl.status == 200);
  CHECK(tl.body.find(R"("type":"operation_canceled")") != std::string::npos);
  CHECK(tl.body.find(R"("by":"alice")") != std::string::npos);
  // Never a token's secret.
  CHECK(tl.body.find(alice_token) == std::string::npos);

  flip_allowed = false;
  auto failed = started(fx, alice_token, "flip");
  events_until(fx, ci_token, failed, "operation_failed");
  flip_allowed = true;
  REQUIRE(post_as(fx, ci_token, ops + "/" + failed + "/retry") == 202);
  evs = events_until(fx, ci_token, failed, "operation_succeeded");
  CHECK(by_of(evs, "operation_created") == "alice");
  CHECK(by_of(evs, "operation_retried") == "ci");
  CHECK(by_of(evs, "operation_succeeded").empty());
  flip_allowed = false;
}

TEST_CASE("schedule changes are events that name who made them", "[http][by][schedules]") {
  temp_dir dir;
  http_fixture fx{two_writers(dir.path)};
  const std::string schedules = "/api/v1/schedules";
  REQUIRE(post_as(fx, ci_token, schedules,
                  R"({"id":"nightly","workflow":"quick","input":{"n":1},"every":"1h"})")
          == 201);
  REQUIRE(post_as(fx, alice_token, schedules + "/nightly/pause") == 200);
  auto trig =
    to_reply(as(fx, alice_token)->Post(schedules + "/nightly/trigger", "", "application/json"));
  REQUIRE(trig.status == 202);
  auto op = std::string(trig.json.at("id").as_string());
  REQUIRE(to_reply(as(fx, ci_token)->Delete(schedules + "/nightly")).status == 200);
  // Schedule changes have no operation: their operation_id is empty.
  auto changes = events_until(fx, ci_token, "", "schedule_changed");
  auto fired = events_until(fx, ci_token, op, "operation_succeeded");
  changes = events_until(fx, ci_token, "", "schedule_changed");
  std::vector<std::string> seen;
  for (auto& e : changes)
    if (e.at("type") == "schedule_changed") {
      CHECK(e.at("schedule") == "nightly");
      seen.push_back(std::string(e.at("change").as_string()) + " by "
                     + std::string(e.at("by").as_string()));
    }
  CHECK(seen == std::vector<std::string>{"created by ci", "paused by alice", "deleted by ci"});
  // A trigger is a person's start: it names them.
  CHECK(by_of(fired, "operation_created") == "alice");
  CHECK(by_of(fired, "schedule_fired") == "alice");
}

TEST_CASE("a server without tokens names its callers anonymous", "[http][by]") {
  http_fixture fx;
  auto id = fx.start_op("quick");
  auto evs = events_until(fx, nullptr, id, "operation_succeeded");
  CHECK(by_of(evs, "operation_created") == "anonymous");
  CHECK(by_of(evs, "operation_succeeded").empty());
}

TEST_CASE("the CLI shows who did what; the broker's starts name its user",
          "[http][by][process][osb]") {
  temp_dir dir;
  auto tokens = dir.path + "/tokens";
  std::ofstream(tokens) << "write ops " << ci_token << "\n";
  child srv({stepwise_binary(), "serve", "--listen", "127.0.0.1:0", "--store",
             "sqlite:" + dir.path + "/sw.db", "--auth-tokens", tokens, "--osb", "--osb-credentials",
             write_broker_credentials(dir.path), "--sim-latency-ms", "20:60"});
  auto port = srv.await_port(std::chrono::seconds(20));
  INFO(srv.err);
  REQUIRE(port > 0);
  auto url = " --url http://127.0.0.1:" + std::to_string(port) + " --token " + ci_token;
  auto out = run_cli("ops start demo" + url);
  INFO(out);
  REQUIRE(out.rfind("started ", 0) == 0);
  auto id = out.substr(8, out.find(' ', 8) - 8);
  // Whatever state it is in by then: a refusal writes nothing.
  (void)run_cli("ops cancel " + id + url);
  auto events = run_cli("events" + url);
  INFO(events);
  CHECK(events.find("by=ops") != std::string::npos);
  auto json = run_cli("events --json" + url);
  CHECK(json.find(R"("by":"ops")") != std::string::npos);
  CHECK(json.find(ci_token) == std::string::npos);

  // The broker: its basic-auth user, never its password.
  httplib::Client c("127.0.0.1", port);
  c.set_basic_auth(broker_user, broker_password);
  httplib::Headers hs{{"X-Broker-API-Version", "2.17"}};
  auto body = R"({"service_id":")" + std::string(http::osb_service_id)
              + R"(","plan_id":"5d2e8f61-0b7c-4a93-9e4d-2c6f1a8b3e21","organization_guid":"o",)"
                R"("space_guid":"s","parameters":{"template":"outputs.url: http://rt",)"
                R"("deployment_location":{"name":"dc1","properties":{}}}})";
  auto prov = to_reply(
    c.Put("/v2/service_instances/rt-1?accepts_incomplete=true", hs, body, "application/json"));
  INFO(prov.body);
  REQUIRE(prov.status == 202);
  auto broker_events = run_cli("events --json" + url);
  CHECK(broker_events.find(R"("by":"osb:platform")") != std::string::npos);
  CHECK(broker_events.find(broker_password) == std::string::npos);
  // The log by workflow or label: the broker's operation, or the demo.
  auto provisions =
    run_cli("events --json --workflow provision_runtime --label runtime=rt-1" + url);
  CHECK(provisions.find(R"("by":"osb:platform")") != std::string::npos);
  CHECK(provisions.find(id) == std::string::npos);
  auto demo = run_cli("events --json --workflow demo" + url);
  CHECK(demo.find(id) != std::string::npos);
  CHECK(demo.find("osb:platform") == std::string::npos);
  CHECK(run_cli("events --label runtime=rt-2" + url) == "no events\n");
}
