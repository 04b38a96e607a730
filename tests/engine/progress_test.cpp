// engine/progress: the transitions of an operation, without actors.
#include <catch2/catch.hpp>

#include "engine/commands.hpp"
#include "engine/progress.hpp"
#include "engine/step.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include "tests/engine/engine_fixtures.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::fresh;
using test::noop;
using test::t0;

TEST_CASE("transitions: a retry waits, the wake starts the next attempt", "[engine]") {
  workflow wf("w", 1);
  wf.step(1, noop("a")).step(2, noop("b"));
  auto op = fresh(wf);
  std::vector<event> ev;
  auto act = progress::begin_next(op, wf, t0, ev);
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.attempt == 1);
  CHECK(op.state == op_state::in_progress);
  act = progress::apply_result(op, wf, 0, retry_after(3s, "x"), false, 1ms, t0, 0.5, ev);
  CHECK(act.what == next_action::kind::wait);
  CHECK(act.due == t0 + 3s);
  CHECK(op.state == op_state::waiting);
  CHECK(op.wake_at == t0 + 3s);
  act = progress::wake(op, wf, t0 + 3s, ev);
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.attempt == 2);
  act = progress::apply_result(op, wf, 0, done(), false, 1ms, t0 + 3s, 0.5, ev);
  CHECK(act.step == 1);
  act = progress::apply_result(op, wf, 1, done(), false, 1ms, t0 + 3s, 0.5, ev);
  CHECK(act.what == next_action::kind::finish);
  CHECK(op.state == op_state::succeeded);
  size_t terminal = 0;
  for (auto& e : ev)
    terminal += is_terminal(e.type) ? 1 : 0;
  CHECK(terminal == 1);
}

TEST_CASE("transitions: recovery re-runs an interrupted step as a new attempt", "[engine]") {
  workflow wf("w", 1);
  wf.step(1, noop("a")).step(2, noop("b"));
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::begin_next(op, wf, t0, ev);
  progress::apply_result(op, wf, 0, done(), false, 1ms, t0, 0.5, ev);
  // Crash while "b" runs: recovery starts attempt 2 of "b", never "a".
  ev.clear();
  auto act = progress::recover(op, wf, t0 + 1s, ev);
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.step == 1);
  CHECK(act.attempt == 2);
  CHECK(op.steps[0].attempts == 1);
}

namespace {

size_t count(const std::vector<event>& ev, event_type type) {
  size_t n = 0;
  for (auto& e : ev)
    n += e.type == type ? 1 : 0;
  return n;
}

size_t terminal(const std::vector<event>& ev) {
  size_t n = 0;
  for (auto& e : ev)
    n += is_terminal(e.type) ? 1 : 0;
  return n;
}

signal_record signal_named(std::string name, boost::json::value payload = {}) {
  signal_record s;
  s.name = std::move(name);
  s.id = "s-1";
  s.payload = std::move(payload);
  s.received_at = t0;
  return s;
}

} // namespace

TEST_CASE("transitions: create records the operation and begins step one in one write",
          "[engine][progress]") {
  auto wf = workflow("w", 1).step(1, noop("a")).step(2, noop("b"));
  auto op = fresh(wf);
  std::vector<event> ev;
  auto act = progress::create(op, wf, t0, ev);
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.step == 0);
  CHECK(act.attempt == 1);
  REQUIRE(ev.size() == 2);
  CHECK(ev[0].type == event_type::operation_created);
  CHECK(ev[1].type == event_type::step_started);
  CHECK(op.steps[0].state == step_state::running);
}

TEST_CASE("transitions: a failed step fails the operation with one terminal event",
          "[engine][progress]") {
  auto wf = workflow("w", 1).step(1, noop("a")).step(2, noop("b"));
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::create(op, wf, t0, ev);
  auto act = progress::apply_result(op, wf, 0, fail("boom"), false, 1ms, t0, 0.5, ev);
  CHECK(act.what == next_action::kind::finish);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("boom") != std::string::npos);
  CHECK(op.steps[1].attempts == 0); // never began
  CHECK(terminal(ev) == 1);
  CHECK(count(ev, event_type::operation_failed) == 1);
}

TEST_CASE("transitions: a best-effort step that gives up lets the operation go on; a retry runs "
          "only it again, as a new run",
          "[engine][progress]") {
  retry_policy once;
  once.max_attempts = 1;
  auto wf = workflow("w", 1)
              .step(1, noop("a"))
              .step(2, noop("flaky").with_policy(once).as_best_effort())
              .step(3, noop("c"));
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::create(op, wf, t0, ev);
  progress::apply_result(op, wf, 0, done(), false, 1ms, t0, 0.5, ev);
  auto act = progress::apply_result(op, wf, 1, retry_after(1s, "down"), false, 1ms, t0, 0.5, ev);
  CHECK(act.step == 2); // gave up: on to c
  CHECK(op.steps[1].state == step_state::incomplete);
  CHECK(count(ev, event_type::step_incomplete) == 1);
  act = progress::apply_result(op, wf, 2, done(), false, 1ms, t0, 0.5, ev);
  CHECK(op.state == op_state::succeeded);
  REQUIRE(allows(op, command::retry, t0));
  ev.clear();
  act = progress::retry(op, wf, t0 + 1s, ev);
  REQUIRE(!ev.empty());
  CHECK(ev.front().type == event_type::operation_retried);
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.step == 1); // only the incomplete step
  CHECK(op.steps[0].state == step_state::succeeded);
  CHECK(op.steps[2].state == step_state::succeeded);
  progress::apply_result(op, wf, 1, done(), false, 1ms, t0 + 1s, 0.5, ev);
  CHECK(op.state == op_state::succeeded);
  CHECK(terminal(ev) == 1); // the new run's own
}

TEST_CASE("transitions: a retry of a failed operation starts its failed step afresh, never a "
          "completed one",
          "[engine][progress]") {
  retry_policy twice;
  twice.max_attempts = 2;
  auto wf = workflow("w", 1).step(1, noop("a")).step(2, noop("b").with_policy(twice));
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::create(op, wf, t0, ev);
  progress::apply_result(op, wf, 0, done(), false, 1ms, t0, 0.5, ev);
  progress::apply_result(op, wf, 1, retry_after(1s, "x"), false, 1ms, t0, 0.5, ev);
  progress::wake(op, wf, t0 + 1s, ev);
  progress::apply_result(op, wf, 1, retry_after(1s, "x"), false, 1ms, t0 + 1s, 0.5, ev);
  REQUIRE(op.state == op_state::failed);
  ev.clear();
  auto act = progress::retry(op, wf, t0 + 2s, ev);
  CHECK(ev.front().type == event_type::operation_retried);
  CHECK(ev.front().state == "pending");
  CHECK(act.step == 1);
  CHECK(act.attempt == 1); // a fresh budget: its attempts count anew
  CHECK(op.steps[0].state == step_state::succeeded);
  CHECK(op.error.empty());
}

TEST_CASE("transitions: cancel, and pause then resume, of a waiting operation",
          "[engine][progress]") {
  auto wf = workflow("w", 1).step(1, noop("a")).step(2, make_sleep("nap", 1h));
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::create(op, wf, t0, ev);
  auto act = progress::apply_result(op, wf, 0, done(), false, 1ms, t0, 0.5, ev);
  REQUIRE(op.state == op_state::waiting);
  SECTION("cancel") {
    ev.clear();
    act = progress::cancel(op, wf, t0 + 1s, ev);
    CHECK(act.what == next_action::kind::finish);
    CHECK(op.state == op_state::canceled);
    CHECK(count(ev, event_type::operation_canceled) == 1);
  }
  SECTION("pause and resume") {
    ev.clear();
    act = progress::pause(op, "pause requested", t0 + 1s, ev);
    CHECK(act.what == next_action::kind::park);
    CHECK(op.state == op_state::paused);
    CHECK(count(ev, event_type::operation_paused) == 1);
    act = progress::resume(op, wf, t0 + 2s, ev);
    CHECK(count(ev, event_type::operation_resumed) == 1);
    // The sleep starts again.
    CHECK(act.what == next_action::kind::wait);
    CHECK(act.due == t0 + 2s + 1h);
    CHECK(terminal(ev) == 0);
  }
}

TEST_CASE("transitions: a signal ends the wait that waits for it, and is stored otherwise",
          "[engine][progress]") {
  auto wf = workflow("w", 1).step(1, await_signal("w", "go", 5s)).step(2, noop("b"));
  auto op = fresh(wf);
  std::vector<event> ev;
  auto act = progress::create(op, wf, t0, ev);
  REQUIRE(act.what == next_action::kind::await);
  CHECK(act.due == t0 + 5s);
  CHECK(op.state == op_state::waiting);
  act = progress::apply_signal(op, wf, signal_named("other"), t0 + 1s, ev);
  CHECK(act.what == next_action::kind::none); // stored only
  CHECK(op.state == op_state::waiting);
  act =
    progress::apply_signal(op, wf, signal_named("go", boost::json::object{{"n", 1}}), t0 + 2s, ev);
  CHECK(act.what == next_action::kind::run_step);
  CHECK(act.step == 1);
  CHECK(op.steps[0].state == step_state::succeeded);
  CHECK(op.data.at("go").at("n") == 1);
  CHECK(op.signals.size() == 2);
  CHECK(op.signals[1].consumed_by == "w");
  CHECK(count(ev, event_type::signal_received) == 2);
}

TEST_CASE("transitions: a wait that times out fails without a policy, retries with one",
          "[engine][progress]") {
  retry_policy twice;
  twice.max_attempts = 2;
  twice.initial_interval = 1s;
  auto bare = workflow("w", 1).step(1, await_signal("w", "go", 5s));
  auto op = fresh(bare);
  std::vector<event> ev;
  progress::create(op, bare, t0, ev);
  auto act = progress::wake(op, bare, t0 + 5s, ev);
  CHECK(act.what == next_action::kind::finish);
  CHECK(op.state == op_state::failed);
  CHECK(count(ev, event_type::step_timed_out) == 1);
  auto kept = workflow("w", 1).step(1, await_signal("w", "go", 5s).with_policy(twice));
  op = fresh(kept);
  ev.clear();
  progress::create(op, kept, t0, ev);
  act = progress::wake(op, kept, t0 + 5s, ev, 0.5);
  CHECK(act.what == next_action::kind::wait);
  CHECK(op.state == op_state::waiting);
  CHECK(op.steps[0].state == step_state::waiting);
}

TEST_CASE("transitions: a watcher's report about an attempt that is over is stale",
          "[engine][progress]") {
  // A watcher that is never sent anything here.
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  // (An argument: CAF 0.17.6 spawns a function without one through a null
  // pointer, which UBSan rejects.)
  auto watcher = sys.spawn(
    [](int) -> watcher_actor::behavior_type {
      return {[](watch_atom, watch_request&) {}, [](unwatch_atom, const std::string&, int32_t) {}};
    },
    0);
  auto wf = workflow("w", 1).step(
    1, await_task("t", watcher, [](step_context&) -> caf::expected<boost::json::object> {
      return boost::json::object{};
    }));
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::create(op, wf, t0, ev);
  watch_reply old;
  old.operation_id = op.id;
  old.step = "t";
  old.attempt = 7; // not the attempt that waits
  old.result.result = done();
  CHECK(!progress::apply_watch(op, wf, old, {}, t0 + 1s, 0.5, ev));
  watch_reply now = old;
  now.attempt = op.steps[0].attempts;
  // The same attempt number, begun at the same time, of the run before a
  // repair sent the step back.
  op.steps[0].run = 1;
  watch_reply earlier_run = now;
  earlier_run.since = op.steps[0].last_attempt_at;
  earlier_run.run = 0;
  CHECK(!progress::apply_watch(op, wf, earlier_run, {}, t0 + 1s, 0.5, ev));
  now.run = 1;
  auto act = progress::apply_watch(op, wf, now, {}, t0 + 1s, 0.5, ev);
  REQUIRE(act);
  CHECK(act->what == next_action::kind::finish);
  CHECK(op.state == op_state::succeeded);
  caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
}

TEST_CASE("transitions: the deadline fails an operation; a saga compensates first",
          "[engine][progress]") {
  auto undo = [](step_context&) { return done(); };
  auto wf = workflow("w", 1)
              .step(1, noop("a").with_compensation(undo))
              .step(2, noop("b").with_compensation(undo))
              .step(3, noop("c"));
  auto op = fresh(wf);
  std::vector<event> ev;
  progress::create(op, wf, t0, ev);
  progress::apply_result(op, wf, 0, done(), false, 1ms, t0, 0.5, ev);
  progress::apply_result(op, wf, 1, done(), false, 1ms, t0, 0.5, ev);
  ev.clear();
  auto act = progress::expire(op, wf, t0 + 1s, ev);
  CHECK(op.state == op_state::compensating);
  CHECK(act.compensate);
  CHECK(act.step == 1); // in reverse: b first
  act = progress::apply_compensation(op, wf, done(), 1ms, t0 + 1s, 0.5, ev);
  CHECK(act.step == 0);
  act = progress::apply_compensation(op, wf, done(), 1ms, t0 + 1s, 0.5, ev);
  CHECK(act.what == next_action::kind::finish);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("deadline") != std::string::npos);
  CHECK(count(ev, event_type::compensation_succeeded) == 2);
  CHECK(terminal(ev) == 1);
}

TEST_CASE("transitions: an operation of a workflow with a key or limit is created queued, and a "
          "retry queues it again",
          "[engine][progress]") {
  auto wf = workflow("w", 1).step(1, noop("a")).serialize_by("/k");
  auto op = fresh(wf);
  op.admission = admission::queued;
  std::vector<event> ev;
  auto act = progress::create_queued(op, t0, ev);
  CHECK(act.what == next_action::kind::park);
  CHECK(op.state == op_state::pending);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].type == event_type::operation_created);
  op.admission = admission::admitted;
  progress::begin_next(op, wf, t0, ev);
  progress::apply_result(op, wf, 0, fail("x"), false, 1ms, t0, 0.5, ev);
  REQUIRE(op.state == op_state::failed);
  ev.clear();
  act = progress::retry(op, wf, t0 + 1s, ev);
  CHECK(act.what == next_action::kind::park);
  CHECK(op.admission == admission::queued);
  CHECK(op.blocked_by.empty());
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].type == event_type::operation_retried);
}
