// Repair over HTTP: retry with an input patch and from a named step, skip
// of the step an operation stopped at, and the 400s (naming the field) and
// 409s (naming the state) around them.
#include <array>
#include <atomic>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

// How often each step of `repairable` ran: create_vm, configure, finish.
std::array<std::atomic<int>, 3> runs_of_step{};

int runs(size_t i) {
  return runs_of_step[i].load();
}

registry repair_registry(caf::actor_system&) {
  registry reg;
  workflow w("repairable", 1);
  // create_vm fails unless the input asks for a size it has; it keeps the
  // size in the data, which a re-run overwrites.
  w.step(10, make_step("create_vm",
                       [](step_context& ctx) {
                         ++runs_of_step[0];
                         auto* size = ctx.input().if_contains("size");
                         if (size == nullptr || *size != "small")
                           return fail("no such size");
                         ctx.data()["vm"] = *size;
                         return done();
                       }))
    .step(20, make_step("configure",
                        [](step_context& ctx) {
                          ++runs_of_step[1];
                          if (auto* stuck = ctx.input().if_contains("stuck");
                              stuck && *stuck == true)
                            return retry_after(std::chrono::hours(1), "waiting for a quota");
                          return done();
                        }))
    .step(30, make_step("finish",
                        [](step_context&) {
                          ++runs_of_step[2];
                          return done();
                        }))
    .secret("/password");
  REQUIRE(reg.add(std::move(w)));
  return reg;
}

std::string op_state_text(const reply& r) {
  return std::string(r.json.at("state").as_string());
}

std::string step_state_of(const reply& r, size_t i) {
  return std::string(r.json.at("steps").as_array().at(i).at("state").as_string());
}

/// The events of `id` in the log, oldest first.
std::vector<boost::json::object> repair_events_of(const http_fixture& fx, const std::string& id) {
  std::vector<boost::json::object> out;
  auto r = fx.get("/api/v1/events?limit=1000");
  for (auto& e : r.json.at("items").as_array())
    if (e.at("operation_id") == id.c_str())
      out.push_back(e.as_object());
  return out;
}

const boost::json::object* last_event_of(const std::vector<boost::json::object>& evs,
                                         const char* type) {
  const boost::json::object* found = nullptr;
  for (auto& e : evs)
    if (e.at("type") == type)
      found = &e;
  return found;
}

} // namespace

TEST_CASE("retry with an input patch fixes a failed operation", "[http][repair]") {
  http_fixture fx{http_fixture::default_config(), nullptr, repair_registry};
  for (auto& r : runs_of_step)
    r = 0;
  auto id = fx.start_op("repairable", R"({"size":"huge","password":"hunter2","keep":1})");
  REQUIRE(fx.finish(id) == "failed");
  auto version = fx.get(ops + "/" + id).json.at("version");
  auto r = fx.post(ops + "/" + id + "/retry", R"({"input":{"size":"small","password":"s3cret"}})");
  INFO(r.body);
  REQUIRE(r.status == 202);
  REQUIRE(fx.finish(id) == "succeeded");
  auto op = fx.get(ops + "/" + id);
  INFO(op.body);
  CHECK(op.json.at("input").at("size") == "small");
  CHECK(op.json.at("input").at("keep") == 1);
  CHECK(op.json.at("input").at("password") == "***");
  CHECK(op.json.at("version") == version);
  CHECK(op.body.find("s3cret") == std::string::npos);
  CHECK(runs(0) == 2);
  CHECK(runs(1) == 1);
  auto evs = repair_events_of(fx, id);
  auto* patched = last_event_of(evs, "input_patched");
  REQUIRE(patched != nullptr);
  CHECK(boost::json::serialize(patched->at("paths")) == R"(["/size","/password"])");
  auto all = fx.get("/api/v1/events?limit=1000");
  CHECK(all.body.find("s3cret") == std::string::npos);
  CHECK(all.body.find("small") == std::string::npos);
  // A patch that removes a member (null) and one that is not an object.
  CHECK(fx.post(ops + "/" + id + "/retry", R"({"input":[1]})").status == 400);
  auto bad = fx.post(ops + "/" + id + "/retry", R"({"input":"x"})");
  CHECK(bad.status == 400);
  CHECK(bad.body.find("input") != std::string::npos);
}

TEST_CASE("retry from_step runs exactly that step and those after it", "[http][repair]") {
  http_fixture fx{http_fixture::default_config(), nullptr, repair_registry};
  for (auto& r : runs_of_step)
    r = 0;
  auto id = fx.start_op("repairable", R"({"size":"small"})");
  REQUIRE(fx.finish(id) == "succeeded");
  // A succeeded operation without from_step has nothing to retry.
  auto none = fx.post(ops + "/" + id + "/retry", "");
  CHECK(none.status == 409);
  CHECK(none.body.find("is succeeded") != std::string::npos);
  auto unknown = fx.post(ops + "/" + id + "/retry", R"({"from_step":"create_db"})");
  CHECK(unknown.status == 400);
  CHECK(unknown.body.find("from_step") != std::string::npos);
  CHECK(unknown.body.find("create_db") != std::string::npos);
  CHECK(fx.post(ops + "/" + id + "/retry", R"({"from_step":3})").status == 400);
  CHECK(fx.post(ops + "/" + id + "/retry", R"({"from":"x"})").status == 400);
  auto r = fx.post(ops + "/" + id + "/retry", R"({"from_step":"configure"})");
  INFO(r.body);
  REQUIRE(r.status == 202);
  REQUIRE(fx.finish(id) == "succeeded");
  CHECK(runs(0) == 1);
  CHECK(runs(1) == 2);
  CHECK(runs(2) == 2);
  auto op = fx.get(ops + "/" + id);
  CHECK(op.json.at("data").at("vm") == "small"); // kept: create_vm did not run again
  auto evs = repair_events_of(fx, id);
  auto* reset = last_event_of(evs, "steps_reset");
  REQUIRE(reset != nullptr);
  CHECK(reset->at("from_step") == "configure");
  CHECK(boost::json::serialize(reset->at("steps")) == R"(["configure","finish"])");
}

TEST_CASE("skip records the step skipped and goes on", "[http][repair]") {
  http_fixture fx{http_fixture::default_config(), nullptr, repair_registry};
  for (auto& r : runs_of_step)
    r = 0;
  // A failed step.
  auto id = fx.start_op("repairable", R"({"size":"huge"})");
  REQUIRE(fx.finish(id) == "failed");
  CHECK(fx.post(ops + "/" + id + "/skip", R"({"step":"create_vm"})").status == 400);
  auto no_step = fx.post(ops + "/" + id + "/skip", R"({"step":"nope","reason":"x"})");
  CHECK(no_step.status == 400);
  CHECK(no_step.body.find("step") != std::string::npos);
  auto long_reason = fx.post(ops + "/" + id + "/skip",
                             R"({"step":"create_vm","reason":")" + std::string(2000, 'x') + "\"}");
  CHECK(long_reason.status == 400);
  CHECK(long_reason.body.find("reason") != std::string::npos);
  auto not_that = fx.post(ops + "/" + id + "/skip", R"({"step":"finish","reason":"x"})");
  CHECK(not_that.status == 409);
  CHECK(not_that.body.find("is failed") != std::string::npos);
  auto r =
    fx.post(ops + "/" + id + "/skip", R"({"step":"create_vm","reason":"the VM was made by hand"})");
  INFO(r.body);
  REQUIRE(r.status == 202);
  REQUIRE(fx.finish(id) == "succeeded");
  auto op = fx.get(ops + "/" + id);
  CHECK(step_state_of(op, 0) == "skipped");
  CHECK(runs(0) == 1);
  auto evs = repair_events_of(fx, id);
  auto* skipped = last_event_of(evs, "step_skipped");
  REQUIRE(skipped != nullptr);
  CHECK(skipped->at("reason") == "the VM was made by hand");
  CHECK(skipped->at("step") == "create_vm");

  // A waiting step (its retry due in an hour).
  auto w = fx.start_op("repairable", R"({"size":"small","stuck":true})");
  REQUIRE(fx.await_event(w, "step_retry_scheduled"));
  CHECK(op_state_text(fx.get(ops + "/" + w)) == "waiting");
  auto sw = fx.post(ops + "/" + w + "/skip", R"({"step":"configure","reason":"quota by hand"})");
  INFO(sw.body);
  REQUIRE(sw.status == 202);
  REQUIRE(fx.finish(w) == "succeeded");
  CHECK(step_state_of(fx.get(ops + "/" + w), 1) == "skipped");

  // A paused one.
  auto p = fx.start_op("repairable", R"({"size":"small","stuck":true})");
  REQUIRE(fx.await_event(p, "step_retry_scheduled"));
  REQUIRE(fx.post(ops + "/" + p + "/pause", "").status == 202);
  auto sp = fx.post(ops + "/" + p + "/skip", R"({"step":"configure","reason":"by hand"})");
  INFO(sp.body);
  REQUIRE(sp.status == 202);
  REQUIRE(fx.finish(p) == "succeeded");
  // An operation that ended well has nothing to skip.
  auto done_skip = fx.post(ops + "/" + p + "/skip", R"({"step":"finish","reason":"x"})");
  CHECK(done_skip.status == 409);
  CHECK(done_skip.body.find("is succeeded") != std::string::npos);
  CHECK(fx.post(ops + "/missing/skip", R"({"step":"a","reason":"x"})").status == 404);
}

TEST_CASE("retry of a canceled and of a paused operation", "[http][repair]") {
  http_fixture fx{http_fixture::default_config(), nullptr, repair_registry};
  auto id = fx.start_op("repairable", R"({"size":"small","stuck":true})");
  REQUIRE(fx.await_event(id, "step_retry_scheduled"));
  // Running (waiting): not retryable, and the answer names the state.
  auto early = fx.post(ops + "/" + id + "/retry", "");
  CHECK(early.status == 409);
  CHECK(early.body.find("is waiting") != std::string::npos);
  REQUIRE(fx.post(ops + "/" + id + "/pause", "").status == 202);
  auto r = fx.post(ops + "/" + id + "/retry", R"({"input":{"stuck":null}})");
  INFO(r.body);
  REQUIRE(r.status == 202);
  REQUIRE(fx.finish(id) == "succeeded");
  CHECK(fx.get(ops + "/" + id).json.at("input").as_object().if_contains("stuck") == nullptr);

  auto c = fx.start_op("repairable", R"({"size":"small","stuck":true})");
  REQUIRE(fx.await_event(c, "step_retry_scheduled"));
  REQUIRE(fx.post(ops + "/" + c + "/cancel", "").status == 202);
  REQUIRE(fx.finish(c) == "canceled");
  // from_step past the step where it stopped would skip that one: refused.
  auto past = fx.post(ops + "/" + c + "/retry", R"({"from_step":"finish"})");
  CHECK(past.status == 409);
  CHECK(past.body.find("configure") != std::string::npos);
  auto rc = fx.post(ops + "/" + c + "/retry", R"({"input":{"stuck":false}})");
  INFO(rc.body);
  REQUIRE(rc.status == 202);
  REQUIRE(fx.finish(c) == "succeeded");
}
