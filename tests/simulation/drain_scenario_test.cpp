// Interleavings of a drain (`engine::drain`) the simulation found, forced
// one by one: each broke an invariant before its fix.
#include <catch2/catch.hpp>

#include "engine/schedule_requests.hpp"
#include "tests/simulation/invariants.hpp"
#include "tests/simulation/scenario.hpp"

using namespace stepwise;
using namespace stepwise::sim;
using namespace std::chrono_literals;

namespace {

/// Drains the process as `engine::drain` does; the store then checks that
/// nothing is created.
void drain(scenario& s) {
  s.world().drain();
  s.store->drained = true;
}

/// Delivers messages in the order sent until none is left or `limit` were
/// delivered; returns how many were.
size_t deliver_at_most(scenario& s, size_t limit) {
  size_t n = 0;
  for (; n < limit && s.world().sched().has_job(); ++n) {
    s.world().deliver(0, false);
    check_actors(s.log, s.world());
  }
  return n;
}

} // namespace

TEST_CASE("a fire refused by a draining process waits before the next try",
          "[simulation][regression][drain]") {
  scenario s;
  auto tick = periodic_steps("tick", 5s);
  s.world().ask(
    [k = s.world().keeper(), tick](bridge_actor::pointer self, const dispatcher_actor&) {
      self->request(k, caf::infinite, schedule_create_atom::value, tick, std::string{"scenario"})
        .then([](schedule_result&) {}, [](caf::error&) {});
    });
  s.settle();
  drain(s);
  s.world().advance(5s); // the fire is due, and refused
  // Before the fix: the keeper fired again at once on each refusal, and
  // the two actors passed it back and forth for ever.
  CHECK(deliver_at_most(s, 1000) < 1000);
  s.world().advance(1s); // one try more
  CHECK(deliver_at_most(s, 1000) < 1000);
  INFO(s.broken());
  CHECK(!s.log.failed());
  CHECK(s.store->ids().empty());
}

TEST_CASE("a step that starts children counts as running until its result is queued",
          "[simulation][regression][drain]") {
  scenario s;
  auto id = s.start("sim.parent", {{"kids", boost::json::array{boost::json::object{}}}})->id;
  REQUIRE(s.take_job());
  drain(s);    // the attempt began before: it runs, and is written
  s.run_job(); // the fan-out asks for one child
  s.settle_but("start_children");
  // Before the fix: 0 here, with the result not queued; a drain that sees
  // none running stops the process, and the result is lost.
  CHECK(s.world().stats().attempts_running.load() == 1);
  s.settle(); // the child is refused: the step is to be tried again
  CHECK(s.world().stats().attempts_running.load() == 0);
  auto op = s.stored(id);
  REQUIRE(op);
  CHECK(op->steps[0].state != step_state::running);
  CHECK(s.store->ids().size() == 1);
  INFO(s.broken());
  CHECK(!s.log.failed());
}
