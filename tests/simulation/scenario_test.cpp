// Interleavings the simulation found, forced one by one: each broke an
// invariant (or crashed) before its fix. The simulation's invariants are
// checked after every message.
#include <catch2/catch.hpp>

#include <caf/send.hpp>

#include "actors/messages.hpp"
#include "tests/simulation/invariants.hpp"
#include "tests/simulation/scenario.hpp"

using namespace stepwise;
using namespace stepwise::sim;
using namespace std::chrono_literals;

namespace {

std::string violations(const sim_log& log) {
  std::string out;
  for (auto& v : log.violations)
    out += v + "\n";
  return out;
}

boost::json::object plan(const std::string& step, boost::json::array attempts) {
  return {{"plan", boost::json::object{{step, std::move(attempts)}}}};
}

size_t count_events(sim_store& st, const std::string& id, event_type type) {
  auto all = st.events_after(0, 100000);
  size_t n = 0;
  for (auto& e : *all)
    n += e.operation_id == id && e.type == type ? 1 : 0;
  return n;
}

} // namespace

TEST_CASE("a signal while a step runs: one commit at a time, and the read that crashed",
          "[simulation][regression]") {
  scenario s;
  auto op = s.start("sim.steps");
  REQUIRE(op);
  auto id = op->id;
  REQUIRE(s.take_job()); // a worker runs step a
  s.signal(id, "ping");
  s.deliver(); // the signal is stored: its commit is in flight
  s.run_job(); // step a ends while that commit is in flight
  s.deliver();
  s.commit();
  INFO(violations(s.log));
  REQUIRE(!s.log.failed()); // before the fix: two commits in flight, then none committed
  s.get(id);                // the read that crashed the server
  s.deliver();
  REQUIRE(s.answer());
  CHECK(s.answer()->signals.size() == 1);
  CHECK(s.answer()->steps[0].state == step_state::succeeded);
}

TEST_CASE("a retry's timer that fires during a commit is not lost", "[simulation][regression]") {
  engine_config cfg;
  cfg.passivate_after = 10s; // the actor keeps its timer
  scenario s{cfg};
  auto id = s.start("sim.steps", plan("a", {100}))->id;
  s.run_jobs(); // step a asks to be retried in 100 ms
  REQUIRE(s.stored(id)->state == op_state::waiting);
  s.signal(id, "ping");
  s.deliver();      // its commit is in flight ...
  s.advance(100ms); // ... when the retry comes due
  s.run_jobs();
  INFO(violations(s.log));
  CHECK(!s.log.failed());
  auto op = s.stored(id);
  CHECK(op->steps[0].attempts == 2);
  CHECK(op->steps[0].state == step_state::succeeded); // before the fix: waiting forever
}

TEST_CASE("a step's timeout during a commit: one commit at a time", "[simulation][regression]") {
  scenario s;
  auto id = s.start("sim.steps")->id;
  s.run_jobs(); // steps a and b done; step c's asynchronous call is under way
  REQUIRE(s.outside->calls.size() == 1);
  s.signal(id, "ping");
  s.deliver(); // its commit is in flight when step c times out
  s.advance(2s);
  s.commit();
  INFO(violations(s.log));
  CHECK(!s.log.failed());
  CHECK(count_events(*s.store, id, event_type::step_timed_out) == 1);
}

TEST_CASE("a paused operation that stores a signal gives its actor up",
          "[simulation][regression]") {
  scenario s;
  auto id = s.start("sim.signal")->id;
  s.run_jobs(); // waits for its signal (passivated)
  s.command(id, command::pause);
  s.signal(id, "ping");
  s.run_jobs();
  s.advance(1ms); // let nothing but time pass
  s.settle();
  INFO(violations(s.log));
  CHECK(!s.log.failed());
  CHECK(s.stored(id)->state == op_state::paused);
  CHECK(s.world().dispatcher().live.count(id) == 0);
  check_parked(s.log, s.world(), 500ms);
  CHECK(!s.log.failed());
}

TEST_CASE("two retries of an ended operation at once give it one actor",
          "[simulation][regression]") {
  scenario s;
  auto id = s.start("sim.steps", plan("a", {-1}))->id;
  s.run_jobs();
  REQUIRE(s.stored(id)->state == op_state::failed);
  s.command(id, command::retry);
  s.command(id, command::retry);
  s.run_jobs();
  INFO(violations(s.log)); // before the fix: a second actor wrote a stale revision
  CHECK(!s.log.failed());
  CHECK(count_events(*s.store, id, event_type::operation_retried) == 1);
}

TEST_CASE("a signal refused by an ended operation does not end the actor of its retry",
          "[simulation][regression]") {
  scenario s;
  auto id = s.start("sim.steps", plan("a", {-1}))->id;
  REQUIRE(s.take_job());
  s.run_job(); // step a fails: the operation's last commit is in flight ...
  s.deliver();
  s.signal(id, "ping"); // ... when a signal (refused) and a retry arrive
  s.command(id, command::retry);
  s.deliver();
  s.run_jobs();
  INFO(violations(s.log));
  CHECK(!s.log.failed());
  // The retry ran step a again (its plan fails it again): the new run
  // ended, rather than waiting with no actor to carry it on.
  CHECK(count_events(*s.store, id, event_type::operation_retried) == 1);
  CHECK(count_events(*s.store, id, event_type::step_started) == 2);
  CHECK(s.stored(id)->state == op_state::failed);
  s.store->check_settled();
  CHECK(!s.log.failed());
}

TEST_CASE("a retry marks the start of its run, even one canceled at once",
          "[simulation][regression]") {
  scenario s;
  auto id = s.start("sim.keyed", {{"key", "k"}, {"plan", boost::json::object{{"a", {-1}}}}})->id;
  s.run_jobs();
  REQUIRE(s.stored(id)->state == op_state::failed);
  s.command(id, command::retry); // queued again for its key
  s.command(id, command::cancel);
  s.run_jobs();
  INFO(violations(s.log));
  CHECK(!s.log.failed());
  CHECK(s.stored(id)->state == op_state::canceled);
  CHECK(count_events(*s.store, id, event_type::operation_retried) == 1);
  s.store->check_settled(); // one terminal event per run
  CHECK(!s.log.failed());
}

TEST_CASE("a queued start's answer says what it waits for", "[simulation][regression]") {
  scenario s;
  auto first = s.start("sim.keyed", {{"key", "k"}});
  REQUIRE(first);
  CHECK(first->admission == admission::admitted);
  auto second = s.start("sim.keyed", {{"key", "k"}});
  REQUIRE(second);
  CHECK(second->admission == admission::queued);
  CHECK(second->blocked_by == first->id);
  // Canceled, it no longer shows what it waited for.
  s.command(second->id, command::cancel);
  s.settle();
  REQUIRE(s.answer());
  s.get(second->id);
  s.settle();
  REQUIRE(s.answer());
  CHECK(s.answer()->state == op_state::canceled);
  CHECK(s.answer()->blocked_by.empty());
}

TEST_CASE("a commit's own action runs before the timer that fired during it",
          "[simulation][regression]") {
  engine_config cfg;
  cfg.passivate_after = 1h; // the actor keeps its timers
  scenario s{cfg};
  // The watched task settles with "again in 60 s"; the wait's 10 s timeout
  // fires while that is being written.
  auto id = s.start("sim.watch", plan("t", {60000}))->id;
  s.run_jobs(); // step a; the wait on the watcher begins
  REQUIRE(s.report_watch());
  s.deliver();    // the report is being written ...
  s.advance(10s); // ... when the wait's timeout fires
  s.run_jobs();
  INFO(violations(s.log));
  CHECK(!s.log.failed());
  auto op = s.stored(id);
  // The retry waits its 60 s: the timeout belonged to the wait that ended
  // (before the fix it began attempt 2 at once, then armed the retry too).
  CHECK(op->state == op_state::waiting);
  CHECK(op->steps[1].attempts == 1);
  CHECK(op->steps[1].state == step_state::waiting);
  s.advance(50s);
  s.run_jobs();
  CHECK(s.stored(id)->steps[1].attempts == 2);
}

TEST_CASE("an admission from a round that read an earlier turn in line is ignored",
          "[simulation][regression]") {
  scenario s;
  auto id = s.start("sim.keyed", {{"key", "k"}, {"plan", boost::json::object{{"a", {-1}}}}})->id;
  s.run_jobs(); // admitted at revision 1, ran, failed
  REQUIRE(s.stored(id)->state == op_state::failed);
  s.command(id, command::retry); // back in line: its retry is being written ...
  s.deliver();
  auto& live = s.world().dispatcher().live;
  REQUIRE(live.count(id) == 1);
  // ... when the admission of a round that read revision 1 reaches it.
  caf::anon_send(live.at(id), admitted_atom::value, int64_t{1});
  s.run_jobs();
  INFO(violations(s.log)); // before the fix: it ran without being admitted
  CHECK(!s.log.failed());
}

TEST_CASE("a get that reaches an operation's actor while its commit is written shows that commit",
          "[simulation][regression]") {
  // A reader of the store (the event log) sees a commit before its ack
  // reaches the actor: a get the actor answered in between showed the
  // operation older than the operation_succeeded a client had just read.
  scenario s;
  auto id = s.start("sim.steps")->id;
  REQUIRE(s.take_job());
  s.run_job(); // step a ends
  s.deliver(); // its result's commit is in flight
  auto before = s.stored(id)->revision;
  s.get(id);
  REQUIRE(s.deliver_through("dispatcher", "sw_get")); // passed on to the actor
  REQUIRE(s.world().writer().write_once());           // written; its ack comes after the get
  REQUIRE(s.stored(id)->revision > before);
  s.deliver();
  INFO(violations(s.log));
  CHECK(!s.log.failed());
  REQUIRE(s.answer());
  CHECK(s.answer()->revision == s.stored(id)->revision); // before the fix: the revision before
}
