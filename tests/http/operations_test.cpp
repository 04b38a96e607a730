#include <set>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;

TEST_CASE("POST /operations creates an operation and GET returns it", "[http][operations]") {
  http_fixture fx;
  auto r = fx.post(ops, R"({"workflow":"secretive","input":{"user":"ann","password":"hunter2"}})");
  REQUIRE(r.status == 201);
  auto& op = r.json.as_object();
  auto id = std::string(op.at("id").as_string());
  CHECK(r.header("Location") == std::string(ops) + "/" + id);
  CHECK(op.at("workflow") == "secretive");
  CHECK(op.at("version") == 1);
  CHECK(op.at("input").at("user") == "ann");
  CHECK(op.at("input").at("password") == "***");
  CHECK(r.body.find("hunter2") == std::string::npos);
  for (auto key : {"state", "data", "error", "created_at", "updated_at", "deadline", "steps"})
    CHECK(op.contains(key));
  CHECK(fx.finish(id) == "succeeded");
  auto got = fx.get(std::string(ops) + "/" + id);
  REQUIRE(got.status == 200);
  CHECK(got.json.at("state") == "succeeded");
  CHECK(got.json.at("input").at("password") == "***");
  auto& step = got.json.at("steps").as_array().at(0).as_object();
  CHECK(step.at("name") == "only");
  CHECK(step.at("state") == "succeeded");
  CHECK(step.at("attempts") == 1);
  for (auto key : {"weight", "first_attempt_at", "last_attempt_at", "next_attempt_at",
                   "duration_ms", "last_error"})
    CHECK(step.contains(key));
  // RFC 3339 UTC with milliseconds.
  auto created = std::string(got.json.at("created_at").as_string());
  CHECK(created.size() == 24);
  CHECK(created.back() == 'Z');
  CHECK(created[19] == '.');
}

TEST_CASE("an optional version and deadline are accepted", "[http][operations]") {
  http_fixture fx;
  auto r = fx.post(ops, R"({"workflow":"quick","version":1,"input":{},)"
                        R"("deadline":"2099-01-02T03:04:05.678Z","idempotency_key":null})");
  REQUIRE(r.status == 201);
  CHECK(r.json.at("deadline") == "2099-01-02T03:04:05.678Z");
  auto bad = fx.post(ops, R"({"workflow":"quick","version":7,"input":{}})");
  CHECK(bad.status == 400);
  CHECK(bad.error_code() == "unknown_workflow");
}

TEST_CASE("an idempotency key replays the same operation or conflicts", "[http][operations]") {
  http_fixture fx;
  auto body = R"({"workflow":"quick","input":{"a":1},"idempotency_key":"k-1"})";
  auto first = fx.post(ops, body);
  REQUIRE(first.status == 201);
  auto again = fx.post(ops, body);
  REQUIRE(again.status == 200);
  CHECK(again.json.at("id") == first.json.at("id"));
  auto other = fx.post(ops, R"({"workflow":"quick","input":{"a":2},"idempotency_key":"k-1"})");
  CHECK(other.status == 409);
  CHECK(other.error_code() == "idempotency_conflict");
  CHECK(fx.count_ops() == 1);
}

TEST_CASE("GET /operations pages newest first and filters", "[http][operations]") {
  http_fixture fx;
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i)
    ids.push_back(fx.start_op("quick"));
  auto sleeper = fx.start_op("sleepy");
  for (auto& id : ids)
    REQUIRE(fx.finish(id) == "succeeded");
  std::vector<std::string> seen;
  std::string cursor;
  int pages = 0;
  for (;;) {
    auto r = fx.get(std::string(ops) + "?limit=2&workflow=quick"
                    + (cursor.empty() ? "" : "&cursor=" + cursor));
    REQUIRE(r.status == 200);
    ++pages;
    for (auto& op : r.json.at("items").as_array())
      seen.emplace_back(op.at("id").as_string());
    if (r.json.at("next_cursor").is_null())
      break;
    cursor = std::string(r.json.at("next_cursor").as_string());
    REQUIRE(pages < 10);
  }
  CHECK(pages == 3);
  std::vector<std::string> newest_first(ids.rbegin(), ids.rend());
  CHECK(seen == newest_first);
  auto done = fx.get(std::string(ops) + "?state=succeeded&limit=500");
  REQUIRE(done.status == 200);
  CHECK(done.json.at("items").as_array().size() == 5);
  CHECK(done.json.at("next_cursor").is_null());
  auto by_wf = fx.get(std::string(ops) + "?workflow=sleepy");
  REQUIRE(by_wf.json.at("items").as_array().size() == 1);
  CHECK(by_wf.json.at("items").as_array()[0].at("id") == sleeper.c_str());
}

TEST_CASE("cancel answers 202, then 409; unknown ids are 404", "[http][operations]") {
  http_fixture fx;
  auto id = fx.start_op("sleepy");
  REQUIRE(fx.await_event(id, "operation_waiting"));
  auto r = fx.post(std::string(ops) + "/" + id + "/cancel", "");
  REQUIRE(r.status == 202);
  CHECK(r.json.at("id") == id.c_str());
  REQUIRE(fx.await_event(id, "operation_canceled"));
  CHECK(fx.finish(id) == "canceled");
  auto again = fx.post(std::string(ops) + "/" + id + "/cancel", "{}");
  CHECK(again.status == 409);
  CHECK(again.error_code() == "invalid_state");
  auto missing = fx.post(std::string(ops) + "/op-nope/cancel", "");
  CHECK(missing.status == 404);
  CHECK(missing.error_code() == "not_found");
  CHECK(fx.get(std::string(ops) + "/op-nope").status == 404);
}

TEST_CASE("retry resumes a failed operation; other states are 409", "[http][operations]") {
  http_fixture fx;
  flip_allowed = false;
  auto id = fx.start_op("flip");
  REQUIRE(fx.finish(id) == "failed");
  auto failed = fx.get(std::string(ops) + "/" + id);
  CHECK(failed.json.at("error").is_string());
  flip_allowed = true;
  auto r = fx.post(std::string(ops) + "/" + id + "/retry", "");
  REQUIRE(r.status == 202);
  REQUIRE(fx.await_event(id, "operation_succeeded"));
  CHECK(fx.finish(id) == "succeeded");
  auto again = fx.post(std::string(ops) + "/" + id + "/retry", "");
  CHECK(again.status == 409);
  CHECK(again.error_code() == "invalid_state");
  CHECK(fx.post(std::string(ops) + "/op-nope/retry", "").status == 404);
  flip_allowed = false;
}

TEST_CASE("workflows are listed with their steps", "[http][workflows]") {
  http_fixture fx;
  auto all = fx.get("/api/v1/workflows");
  REQUIRE(all.status == 200);
  std::set<std::string> names;
  for (auto& wf : all.json.at("items").as_array())
    names.emplace(wf.at("name").as_string());
  CHECK(names == std::set<std::string>{"billed", "demo", "flip", "quick", "secretive", "sleepy"});
  auto demo = fx.get("/api/v1/workflows/demo");
  REQUIRE(demo.status == 200);
  CHECK(demo.json.at("version") == 1);
  CHECK(demo.json.at("versions") == boost::json::array{1});
  auto& steps = demo.json.at("steps").as_array();
  REQUIRE(steps.size() == 5);
  CHECK(steps[2].at("kind") == "sleep");
  CHECK(steps[3].at("best_effort") == true);
  CHECK(steps[1].at("retry_policy").at("max_attempts") == 3);
  auto secret = fx.get("/api/v1/workflows/secretive");
  CHECK(secret.json.at("secret_paths") == boost::json::array{"/password"});
  CHECK(fx.get("/api/v1/workflows/demo?version=1").status == 200);
  CHECK(fx.get("/api/v1/workflows/demo?version=2").status == 404);
  CHECK(fx.get("/api/v1/workflows/nope").status == 404);
  CHECK(fx.get("/api/v1/workflows/demo?version=x").status == 400);
}

TEST_CASE("health and readiness", "[http][health]") {
  http_fixture fx;
  auto h = fx.get("/healthz");
  CHECK(h.status == 200);
  CHECK(h.json.at("status") == "ok");
  // Recovery finishes asynchronously after launch: wait for it, bounded.
  reply r;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((r = fx.get("/readyz")).status != 200 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(r.status == 200);
  CHECK(r.json.at("store") == "sqlite");
}

TEST_CASE("a second server cannot take a port in use", "[http][server]") {
  http_fixture fx;
  auto cfg = http_fixture::default_config();
  cfg.port = fx.port();
  http::server other{*fx.sys, fx.eng, cfg};
  auto bound = other.bind();
  CHECK_FALSE(bound);
}
