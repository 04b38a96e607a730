// Signals and wait steps: stored whether or not the operation waits, one
// resumption each, durable across restarts; a watched task and a signal
// race and only one ends the wait.
#include <atomic>
#include <condition_variable>
#include <mutex>

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/gate.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::gate;
using test::harness;
using test::ok;
using test::one;

namespace {

signal_request sig(std::string name, boost::json::object payload = {}, std::string id = {}) {
  return {std::move(name), std::move(payload), std::move(id)};
}

registry waits_for_go(gate* g = nullptr, std::optional<duration> timeout = std::nullopt) {
  workflow wf("w", 1);
  if (g)
    wf.step(1, g->step("first"));
  return one(std::move(wf).step(2, await_signal("wait", "go", timeout)).step(3, ok("after")));
}

size_t signal_events(harness& h, const std::string& id) {
  return h.count(id, event_type::signal_received);
}

} // namespace

TEST_CASE("a signal sent during the wait resumes the operation with its payload",
          "[actors][signals]") {
  harness h{waits_for_go()};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::operation_waiting, "wait"));
  // The waiting operation holds no actor.
  auto until = std::chrono::steady_clock::now() + 10s;
  while (h.eng.stats().operations_sleeping.load() == 0 && std::chrono::steady_clock::now() < until)
    h.pump(10ms);
  CHECK(h.eng.stats().operations_sleeping.load() == 1);
  auto res = h.eng.signal(id, sig("go", {{"image_id", "img-7"}}));
  REQUIRE(res);
  CHECK_FALSE(res->duplicate);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.data.at("go") == boost::json::object{{"image_id", "img-7"}});
  REQUIRE(op.signals.size() == 1);
  CHECK(op.signals[0].consumed_by == "wait");
  CHECK(signal_events(h, id) == 1);
  CHECK(h.count(id, event_type::step_succeeded) == 2);
}

TEST_CASE("a signal sent before the wait is taken when the wait begins", "[actors][signals]") {
  gate g;
  harness h{waits_for_go(&g)};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_started, "first"));
  auto res = h.eng.signal(id, sig("go", {{"n", 1}}));
  REQUIRE(res);
  CHECK(res->op.signals.size() == 1);
  CHECK(res->op.signals[0].consumed_by.empty());
  g.release();
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.data.at("go") == boost::json::object{{"n", 1}});
  CHECK(op.signals[0].consumed_by == "wait");
  CHECK(h.count(id, event_type::operation_waiting) == 0);
}

TEST_CASE("a repeated signal_id is a no-op; a second signal is kept for later",
          "[actors][signals]") {
  harness h{waits_for_go()};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::operation_waiting, "wait"));
  auto first = h.eng.signal(id, sig("go", {{"n", 1}}, "s-1"));
  REQUIRE(first);
  auto again = h.eng.signal(id, sig("go", {{"n", 2}}, "s-1"));
  REQUIRE(again);
  CHECK(again->duplicate);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.data.at("go") == boost::json::object{{"n", 1}});
  CHECK(op.signals.size() == 1);
  CHECK(signal_events(h, id) == 1);
}

TEST_CASE("signals to ended, unknown operations and with bad names are refused",
          "[actors][signals]") {
  harness h{waits_for_go()};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::operation_waiting, "wait"));
  REQUIRE(h.eng.signal(id, sig("go")));
  REQUIRE(h.finish(id).state == op_state::succeeded);
  auto late = h.eng.signal(id, sig("go"));
  REQUIRE_FALSE(late);
  CHECK(code_of(late.error()) == errc::invalid_state);
  CHECK(message_of(late.error()).find("succeeded") != std::string::npos);
  auto unknown = h.eng.signal("op-nope", sig("go"));
  REQUIRE_FALSE(unknown);
  CHECK(code_of(unknown.error()) == errc::not_found);
  auto bad = h.eng.signal(id, sig("no spaces"));
  REQUIRE_FALSE(bad);
  CHECK(code_of(bad.error()) == errc::invalid_argument);
  CHECK(signal_events(h, id) == 1);
}

TEST_CASE("a wait that lasts past its timeout fails the step", "[actors][signals]") {
  harness h{waits_for_go(nullptr, 30s)};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::operation_waiting, "wait"));
  REQUIRE(h.clk->await_timer(10s));
  h.clk->advance(30s);
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("no signal 'go' within 30000 ms") != std::string::npos);
  CHECK(h.count(id, event_type::step_timed_out) == 1);
}

TEST_CASE("a restart keeps a wait and the signals stored before it", "[actors][signals]") {
  auto st = std::make_shared<memory_store>();
  std::string id;
  {
    harness h{waits_for_go(), st};
    id = h.start("w");
    REQUIRE(h.await(id, event_type::operation_waiting, "wait"));
    REQUIRE(h.eng.signal(id, sig("other", {}, "o-1")));
  }
  harness h{waits_for_go(), st};
  CHECK(h.eng.signal(id, sig("other", {}, "o-1"))->duplicate);
  REQUIRE(h.eng.signal(id, sig("go", {{"after", "restart"}})));
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.data.at("go") == boost::json::object{{"after", "restart"}});
  CHECK(op.steps[1].attempts == 1);
}

namespace {

/// A watcher the test drives: it keeps the watches it gets and the
/// operations it was told to forget.
struct watcher_state {
  std::vector<watch_request> watches;
  std::vector<std::string> unwatched;
};

// `by` is what the reports say. (It takes an argument because CAF 0.17.6
// spawns a function with none through a null pointer, which UBSan rejects.)
/// A watcher, and the test's own messages: what it got, and "report now".
using test_watcher_actor =
  watcher_actor::extend<caf::replies_to<get_atom>::with<std::pair<size_t, size_t>>,
                        caf::reacts_to<watch_done_atom>>;

test_watcher_actor::behavior_type test_watcher(
  test_watcher_actor::stateful_pointer<watcher_state> self, std::string by) {
  return {
    [=](watch_atom, watch_request& req) { self->state.watches.push_back(std::move(req)); },
    [=](unwatch_atom, const std::string& id, int32_t) { self->state.unwatched.push_back(id); },
    [=](get_atom) {
      return std::make_pair(self->state.watches.size(), self->state.unwatched.size());
    },
    // The test's report: answer the last watch with success.
    [=](watch_done_atom) {
      auto& w = self->state.watches.back();
      caf::anon_send(w.reply_to, watch_done_atom::value,
                     answer_watch(w, watch_result{done(), {{"by", by}}, {}}));
    },
  };
}

} // namespace

TEST_CASE("a watched task and a signal race: one ends the wait, once", "[actors][signals]") {
  test_watcher_actor watcher;
  harness h{[&](caf::actor_system& sys, std::shared_ptr<virtual_clock>) {
    // Hidden: a failed check must not leave the system waiting for it.
    watcher = sys.spawn<caf::hidden>(test_watcher, std::string{"watcher"});
    auto task = [](step_context&) -> caf::expected<boost::json::object> {
      return boost::json::object{{"task", "t-1"}};
    };
    return one(workflow("w", 1)
                 .step(1, await_task("await", watcher, task).or_signal("ready"))
                 .step(2, ok("after")));
  }};
  // Stopped and let go before the harness's system ends, even when a
  // check fails.
  struct stop_at_exit {
    test_watcher_actor& a;
    ~stop_at_exit() {
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
      a = nullptr;
    }
  } stop{watcher};
  caf::scoped_actor self{*h.sys};
  auto seen = [&] {
    std::pair<size_t, size_t> out;
    self->request(watcher, caf::infinite, get_atom::value)
      .receive([&](std::pair<size_t, size_t> x) { out = x; }, [](caf::error&) {});
    return out;
  };
  int wins = 0;
  for (int round = 0; round < 20; ++round) {
    // Counted before the start: the watch may arrive before start returns.
    auto watches = seen().first;
    auto id = h.start("w");
    auto until = std::chrono::steady_clock::now() + 10s;
    while (seen().first == watches && std::chrono::steady_clock::now() < until)
      h.pump(5ms);
    // Both answers go out at once.
    caf::anon_send(watcher, watch_done_atom::value);
    auto res = h.eng.signal(id, sig("ready", {{"by", "signal"}}));
    auto op = h.finish(id);
    REQUIRE(op.state == op_state::succeeded);
    CHECK(op.steps[0].state == step_state::succeeded);
    auto succeeded = 0;
    for (auto& e : h.seen)
      succeeded +=
        e.operation_id == id && e.type == event_type::step_succeeded && e.step == "await";
    CHECK(succeeded == 1);
    if (!res) {
      // The report won and the operation (its actor still alive: a watched
      // wait lingers before it passivates) ended before the signal came:
      // refused as by any ended operation, and not stored.
      CHECK(res.error() == errc::invalid_state);
      CHECK(op.signals.empty());
      CHECK(op.data.contains("by"));
      continue;
    }
    REQUIRE(op.signals.size() == 1);
    // Whichever came first is in the data; a signal that came second stays
    // stored, not taken.
    bool signal_won = op.data.contains("ready");
    CHECK(signal_won != op.data.contains("by"));
    if (res)
      CHECK(op.signals[0].consumed_by == (signal_won ? "await" : ""));
    wins += signal_won ? 1 : 0;
  }
  // Both sides won sometimes, or the race was not a race.
  INFO("signal won " << wins << " of 20 rounds");
  // The last actor may still be stopping after its operation ended.
  auto until = std::chrono::steady_clock::now() + 10s;
  while (h.eng.stats().operations_live.load() != 0 && std::chrono::steady_clock::now() < until)
    h.pump(5ms);
  CHECK(h.eng.stats().operations_live.load() == 0);
}
