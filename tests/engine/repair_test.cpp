// Repairs as pure transitions: the merge patch, a retry from a named step,
// a skip, and the checks of the fields and states they need.
#include <catch2/catch.hpp>

#include "engine/commands.hpp"
#include "engine/errc.hpp"
#include "engine/merge_patch.hpp"
#include "engine/progress.hpp"
#include "tests/engine/engine_fixtures.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::fresh;
using test::noop;
using test::t0;

namespace {

workflow three() {
  return workflow("w", 1).step(1, noop("a")).step(2, noop("b")).step(3, noop("c"));
}

/// An operation of `three()` whose three steps succeeded; `ev` has its
/// events.
operation all_done(const workflow& wf, std::vector<event>& ev) {
  auto op = fresh(wf);
  progress::create(op, wf, t0, ev);
  for (size_t i = 0; i < 3; ++i)
    progress::apply_result(op, wf, i, done(), false, 1ms, t0, 0.5, ev);
  return op;
}

command_request repair(command kind, std::string step, std::string reason = {}) {
  command_request req;
  req.kind = kind;
  if (kind == command::retry)
    req.from_step = std::move(step);
  else
    req.step = std::move(step);
  req.reason = std::move(reason);
  return req;
}

} // namespace

TEST_CASE("merge patch: RFC 7396, sealed values replaced whole, paths named", "[engine][repair]") {
  auto doc = boost::json::parse(R"({"a":1,"b":{"c":2,"d":3},"s":{"$sealed":"plain","value":"x"}})")
               .as_object();
  auto patch =
    boost::json::parse(R"({"a":null,"b":{"c":5,"e":{"f":1}},"s":{"k":1},"n":[1]})").as_object();
  auto paths = merge_patch(doc, patch);
  // Compared as objects: an erase may reorder the members.
  CHECK(
    doc
    == boost::json::parse(R"({"b":{"c":5,"d":3,"e":{"f":1}},"s":{"k":1},"n":[1]})").as_object());
  CHECK(paths == std::vector<std::string>{"/a", "/b/c", "/b/e", "/b/e/f", "/s", "/s/k", "/n"});
  auto odd = boost::json::object{};
  CHECK(merge_patch(odd, boost::json::parse(R"({"a/b~":1})").as_object())
        == std::vector<std::string>{"/a~1b~0"});
}

TEST_CASE("retry from a step resets it and those after it, never those before",
          "[engine][repair]") {
  auto wf = three();
  std::vector<event> ev;
  auto op = all_done(wf, ev);
  REQUIRE(op.state == op_state::succeeded);
  CHECK(!allows(op, command_request::retry(), t0));
  auto req = repair(command::retry, "b");
  CHECK(!check_fields(op, req));
  REQUIRE(allows(op, req, t0));
  ev.clear();
  auto act = progress::retry(op, wf, t0, ev, 1);
  CHECK(ev.front().type == event_type::steps_reset);
  CHECK(boost::json::serialize(ev.front().extra) == R"({"from_step":"b","steps":["b","c"]})");
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.step == 1);
  CHECK(op.steps[0].state == step_state::succeeded);
  CHECK(op.workflow_version == 1);
  auto unknown = repair(command::retry, "z");
  CHECK(code_of(check_fields(op, unknown)) == errc::invalid_argument);
  CHECK(message_of(check_fields(op, unknown))
        == "from_step: workflow 'w' version 1 has no step 'z' (its steps: a, b, c)");
}

TEST_CASE("a from_step past the step where the operation stopped is refused", "[engine][repair]") {
  auto wf = three();
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::create(op, wf, t0, ev);
  progress::apply_result(op, wf, 0, done(), false, 1ms, t0, 0.5, ev);
  progress::apply_result(op, wf, 1, fail("boom"), false, 1ms, t0, 0.5, ev);
  REQUIRE(op.state == op_state::failed);
  CHECK(allows(op, repair(command::retry, "a"), t0));
  CHECK(allows(op, repair(command::retry, "b"), t0));
  CHECK(!allows(op, repair(command::retry, "c"), t0));
  auto no = refusal(op, repair(command::retry, "c"), t0);
  CHECK(code_of(no) == errc::invalid_state);
  CHECK(message_of(no).find("comes after step 'b'") != std::string::npos);
}

// The dispatcher asks for the refusal of a command that the process
// driving the operation refused, for the operation as read back, which
// may take the command by now.
TEST_CASE("the refusal of a retry from a step of an operation that would take it names its state",
          "[engine][repair]") {
  auto wf = three();
  std::vector<event> ev;
  auto op = all_done(wf, ev);
  auto req = repair(command::retry, "b");
  REQUIRE(allows(op, req, t0));
  auto no = refusal(op, req, t0);
  CHECK(code_of(no) == errc::invalid_state);
  CHECK(message_of(no).rfind("operation '" + op.id + "' is succeeded: ", 0) == 0);
}

TEST_CASE("skip: only the failed, paused or waiting step, with a reason", "[engine][repair]") {
  auto wf = three();
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::create(op, wf, t0, ev);
  progress::apply_result(op, wf, 0, done(), false, 1ms, t0, 0.5, ev);
  CHECK(!allows(op, repair(command::skip, "b", "x"), t0)); // running
  progress::apply_result(op, wf, 1, fail("boom"), false, 1ms, t0, 0.5, ev);
  CHECK(message_of(check_fields(op, repair(command::skip, "b")))
        == "reason: required (why the "
           "step is skipped)");
  CHECK(code_of(check_fields(op, repair(command::skip, "b", std::string(2000, 'x'))))
        == errc::invalid_argument);
  CHECK(!allows(op, repair(command::skip, "c", "x"), t0));
  CHECK(!allows(op, repair(command::skip, "a", "x"), t0));
  REQUIRE(allows(op, repair(command::skip, "b", "by hand"), t0));
  ev.clear();
  auto act = progress::skip(op, wf, 1, "by hand", t0, ev);
  CHECK(ev[0].type == event_type::operation_retried);
  CHECK(ev[1].type == event_type::step_skipped);
  CHECK(ev[1].extra.at("reason") == "by hand");
  CHECK(op.steps[1].state == step_state::skipped);
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.step == 2);
}
