// engine/commands: which states allow which command, and the refusals.
#include <catch2/catch.hpp>

#include "engine/commands.hpp"
#include "engine/errc.hpp"
#include "tests/engine/engine_fixtures.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::fresh;
using test::noop;
using test::t0;

TEST_CASE("commands are allowed by state and refused with the reason", "[engine]") {
  auto wf = workflow("w", 1).step(1, noop("a"));
  auto op = fresh(wf);
  op.state = op_state::in_progress;
  CHECK(allows(op, command::cancel, t0));
  CHECK(!allows(op, command::retry, t0));
  auto no = refusal(op, command::retry, t0);
  CHECK(code_of(no) == errc::invalid_state);
  CHECK(message_of(no)
        == "operation 'op-1' is in_progress: only failed, canceled and paused operations, and "
           "succeeded ones with incomplete steps or a from_step, can be retried");
  CHECK(allows(op, command::pause, t0));
  CHECK(!allows(op, command::resume, t0));
  op.state = op_state::failed;
  CHECK(allows(op, command::retry, t0));
  CHECK(!allows(op, command::cancel, t0));
  CHECK(!allows(op, command::pause, t0));
  op.state = op_state::succeeded;
  CHECK(!allows(op, command::retry, t0));
  CHECK(message_of(refusal(op, command::retry, t0)).find("no incomplete steps")
        != std::string::npos);
  op.steps[0].state = step_state::incomplete;
  CHECK(allows(op, command::retry, t0));
  op.state = op_state::paused;
  CHECK(allows(op, command::resume, t0));
  CHECK(allows(op, command::cancel, t0));
  CHECK(!allows(op, command::pause, t0));
  op.state = op_state::pending;
  op.admission = admission::queued;
  op.blocked_by = "op-0";
  CHECK(!allows(op, command::pause, t0));
  CHECK(message_of(refusal(op, command::pause, t0)).find("queued (blocked by 'op-0')")
        != std::string::npos);
  CHECK(allows(op, command::cancel, t0));
}

TEST_CASE("a retry is refused once the deadline has passed", "[engine]") {
  auto wf = workflow("w", 1).step(1, noop("a"));
  auto op = fresh(wf);
  op.state = op_state::failed;
  op.deadline = t0 + 10s;
  CHECK(allows(op, command::retry, t0 + 9s));
  CHECK(!allows(op, command::retry, t0 + 10s));
  auto no = refusal(op, command::retry, t0 + 11s);
  CHECK(code_of(no) == errc::invalid_state);
  CHECK(message_of(no).find("deadline") != std::string::npos);
  CHECK(message_of(no).find("start a new operation") != std::string::npos);
  // Other refusals keep their reason.
  op.state = op_state::in_progress;
  CHECK(message_of(refusal(op, command::retry, t0 + 11s)).find("only failed") != std::string::npos);
}
