// Interleavings of child operations the simulation found, forced one by
// one: each broke an invariant before its fix.
#include <catch2/catch.hpp>

#include "tests/simulation/invariants.hpp"
#include "tests/simulation/scenario.hpp"

using namespace stepwise;
using namespace stepwise::sim;
using namespace std::chrono_literals;

namespace {

/// The input of a `sim.parent` with one child that plans nothing (it
/// succeeds).
boost::json::object one_kid() {
  return {{"kids", boost::json::array{boost::json::object{}}}};
}

/// Ends the first asynchronous call in flight with `done`.
void end_call(scenario& s) {
  REQUIRE(!s.outside->calls.empty());
  auto call = std::move(s.outside->calls.front());
  s.outside->calls.erase(s.outside->calls.begin());
  call.complete(done());
}

} // namespace

TEST_CASE("a parent that looks at its children again keeps its actor until it has seen them",
          "[simulation][regression][children]") {
  scenario s;
  auto id = s.start("sim.parent", one_kid())->id;
  REQUIRE(s.take_job());
  s.run_job(); // the fan-out asks for one child
  // The parent's look at its child finds it running; the answer waits ...
  s.settle_but("children_read of");
  // ... while the child ends, counted by the dispatcher.
  REQUIRE(s.take_job());
  s.run_job();
  s.settle_but("children_read of");
  end_call(s);
  s.settle_but("children_read of");
  REQUIRE(is_terminal(s.stored(s.store->ids().back())->state));
  // The parent asks to be woken after one more end (already counted: it
  // is nudged at once) and to passivate; the nudge's look comes first.
  s.run_jobs();
  INFO(s.broken());
  CHECK(!s.log.failed());
  // Before the fix: it passivated with the look under way, and nothing
  // woke it again.
  CHECK(s.stored(id)->state == op_state::succeeded);
}

TEST_CASE("a parent paused while it looks at its children gives its actor up",
          "[simulation][regression][children]") {
  scenario s;
  auto id = s.start("sim.parent", one_kid())->id;
  REQUIRE(s.take_job());
  s.run_job();
  // The list of its children is not read yet when the pause comes.
  s.settle_but("list children of");
  REQUIRE(s.stored(id)->state == op_state::waiting);
  s.command(id, command::pause);
  s.settle_but("list children of");
  REQUIRE(s.stored(id)->state == op_state::paused);
  s.settle(); // the list comes to a paused operation
  INFO(s.broken());
  CHECK(!s.log.failed());
  // Before the fix: the look counted as under way forever, and the actor
  // refused every passivation.
  CHECK(s.world().dispatcher().live.count(id) == 0);
  check_parked(s.log, s.world(), 500ms);
  CHECK(!s.log.failed());
  s.command(id, command::resume);
  s.run_jobs();
  end_call(s);
  s.run_jobs();
  CHECK(s.stored(id)->state == op_state::succeeded);
}
