// The transition of an operation whose version is not registered, the
// registry's versions, and the definition rules of transient steps.
#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "engine/progress.hpp"
#include "engine/redact.hpp"
#include "engine/registry.hpp"
#include "tests/engine/engine_fixtures.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::noop;
using test::t0;

namespace {

/// An operation of `w` v1 whose second step waits for its retry.
operation waiting_at_second() {
  operation op;
  op.id = "op-1";
  op.workflow = "w";
  op.workflow_version = 1;
  op.input = std::make_shared<const boost::json::object>();
  op.steps.resize(3);
  op.steps[0].name = "a";
  op.steps[0].state = step_state::succeeded;
  op.steps[1].name = "b";
  op.steps[1].state = step_state::waiting;
  op.steps[1].next_attempt_at = t0 + 30s;
  op.steps[2].name = "c";
  op.state = op_state::waiting;
  op.wake_at = t0 + 30s;
  return op;
}

} // namespace

TEST_CASE("an operation whose version is not registered fails, naming it", "[engine][versions]") {
  auto op = waiting_at_second();
  std::vector<event> out;
  auto act = progress::fail_unregistered(op, {2, 3}, t0 + 1s, out);
  CHECK(act.what == next_action::kind::finish);
  CHECK(op.state == op_state::failed);
  CHECK(op.error
        == "unknown workflow 'w' version 1: not registered in this process (registered: 2, 3)");
  CHECK(!op.wake_at);
  CHECK(op.steps[0].state == step_state::succeeded);
  CHECK(op.steps[1].state == step_state::failed);
  CHECK(op.steps[1].last_error == op.error);
  CHECK(!op.steps[1].next_attempt_at);
  CHECK(op.steps[2].state == step_state::pending);
  REQUIRE(out.size() == 2);
  CHECK(out[0].type == event_type::step_failed);
  CHECK(out[0].step == "b");
  CHECK(out[1].type == event_type::operation_failed);
  CHECK(out[1].error == op.error);
}

TEST_CASE("a compensating operation whose version is gone says its undo did not run",
          "[engine][versions]") {
  auto op = waiting_at_second();
  op.state = op_state::compensating;
  op.steps[1].state = step_state::failed;
  std::vector<event> out;
  progress::fail_unregistered(op, {}, t0, out);
  CHECK(op.error
        == "unknown workflow 'w' version 1: not registered in this process "
           "(no version is registered); the compensations left did not run");
  // No step was in flight: only the terminal event.
  REQUIRE(out.size() == 1);
  CHECK(out[0].type == event_type::operation_failed);
}

TEST_CASE("the registry lists a workflow's versions", "[engine][versions]") {
  registry reg;
  REQUIRE(reg.add(workflow("w", 3).step(1, noop("a"))));
  REQUIRE(reg.add(workflow("w", 1).step(1, noop("a"))));
  REQUIRE(reg.add(workflow("v", 2).step(1, noop("a"))));
  REQUIRE(reg.add(workflow("x", 1).step(1, noop("a"))));
  CHECK(reg.versions("w") == std::vector<int32_t>{1, 3});
  CHECK(reg.versions("v") == std::vector<int32_t>{2});
  CHECK(reg.versions("nope").empty());
}

TEST_CASE("only blocking and asynchronous steps may produce transient values",
          "[engine][transient]") {
  CHECK(workflow("w", 1).step(1, noop("a").producing_transient()).validate());
  auto bad = workflow("w", 1).step(1, make_sleep("s", 1s).producing_transient()).validate();
  REQUIRE(!bad);
  CHECK(code_of(bad.error()) == errc::invalid_definition);
  CHECK(message_of(bad.error()).find("'s' produces transient values") != std::string::npos);
}

TEST_CASE("secret overrides are secret strings; their names are not", "[engine][transient]") {
  step_context ctx{"op", "s", 1, std::make_shared<boost::json::object>(), {}, {}, nullptr};
  ctx.add_override("core", "domain", "example.org");
  ctx.add_override("lms", "token", "t0k", true);
  auto secrets = secret_strings(boost::json::object{}, {}, ctx.transient());
  CHECK(secrets == std::vector<std::string>{"t0k"});
  CHECK(scrub("lms token t0k for core", secrets) == "lms token *** for core");
}
