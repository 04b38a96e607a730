// Interleavings of child operations the simulation found, forced one by
// one: each broke an invariant before its fix.
#include <catch2/catch.hpp>

#include <caf/scheduled_actor.hpp>

#include "tests/simulation/describe.hpp"
#include "tests/simulation/invariants.hpp"
#include "tests/simulation/scenario.hpp"

using namespace stepwise;
using namespace stepwise::sim;
using namespace std::chrono_literals;

namespace {

std::string broken(const sim_log& log) {
  std::string out;
  for (auto& v : log.violations)
    out += v + "\n";
  return out;
}

/// The input of a `sim.parent` with one child that plans nothing (it
/// succeeds).
boost::json::object one_kid() {
  return {{"kids", boost::json::array{boost::json::object{}}}};
}

/// Returns the next message of job `i` of the coordinator, in words.
std::string next_of(scenario& s, size_t i) {
  auto* actor = dynamic_cast<caf::scheduled_actor*>(s.world().sched().jobs[i]);
  auto* next = actor ? actor->mailbox().peek() : nullptr;
  return next ? sim::describe(next->content()) : std::string{};
}

/// Runs the world (messages in the order sent, writes, admission rounds)
/// until nothing is left but the messages whose words hold `held`.
void settle_but(scenario& s, const std::string& held) {
  for (;;) {
    auto& jobs = s.world().sched().jobs;
    size_t i = 0;
    while (i < jobs.size() && next_of(s, i).find(held) != std::string::npos)
      ++i;
    if (i < jobs.size()) {
      s.log.note(s.world().deliver(i, s.log.tracing()));
      check_actors(s.log, s.world());
      continue;
    }
    auto& w = s.world().writer();
    if (w.has_work())
      w.write_once();
    else if (w.admission_due())
      w.admit_once();
    else
      return;
  }
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
  settle_but(s, "children_read of");
  // ... while the child ends, counted by the dispatcher.
  REQUIRE(s.take_job());
  s.run_job();
  settle_but(s, "children_read of");
  end_call(s);
  settle_but(s, "children_read of");
  REQUIRE(is_terminal(s.stored(s.store->ids().back())->state));
  // The parent asks to be woken after one more end (already counted: it
  // is nudged at once) and to passivate; the nudge's look comes first.
  s.run_jobs();
  INFO(broken(s.log));
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
  settle_but(s, "list children of");
  REQUIRE(s.stored(id)->state == op_state::waiting);
  s.command(id, command::pause);
  settle_but(s, "list children of");
  REQUIRE(s.stored(id)->state == op_state::paused);
  s.settle(); // the list comes to a paused operation
  INFO(broken(s.log));
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
