// Asynchronous steps and step actors: waiting holds no thread; late
// results of abandoned attempts never count.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>

#include <caf/event_based_actor.hpp>

#include <catch2/catch.hpp>

#include "engine/actor_step.hpp"
#include "engine/errc.hpp"
#include "infra/delayed_calls.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::one;

namespace {

/// The attempts an asynchronous step was given, kept for the test to
/// complete when it wants.
class call_log {
public:
  /// The step's start function: keeps the call.
  async_step_fn keeper() {
    return [this](async_call c) {
      if (c.context().input().contains("throw"))
        throw std::runtime_error("no driver");
      {
        std::lock_guard<std::mutex> g{mtx_};
        calls_.push_back(c);
      }
      cv_.notify_all();
    };
  }

  /// Waits (at most 10 s of real time) for call number `n` (1-based).
  async_call await(size_t n) {
    std::unique_lock<std::mutex> g{mtx_};
    cv_.wait_for(g, std::chrono::seconds(10), [&] { return calls_.size() >= n; });
    if (calls_.size() < n)
      FAIL("no call number " << n);
    return calls_[n - 1];
  }

  size_t size() const {
    std::lock_guard<std::mutex> g{mtx_};
    return calls_.size();
  }

private:
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::vector<async_call> calls_;
};

/// A harness whose steps may answer later on its clock; the delayed calls
/// go before the actor system they run in.
struct delayed_harness {
  std::optional<harness> h;
  std::shared_ptr<infra::delayed_calls> later;

  template <class MakeSteps>
  delayed_harness(MakeSteps make, engine_config ec) {
    h.emplace(
      [&](caf::actor_system& sys, std::shared_ptr<virtual_clock> clk) {
        later = std::make_shared<infra::delayed_calls>(sys, clk);
        return make(*later, clk);
      },
      nullptr, ec);
  }
};

} // namespace

TEST_CASE("one step thread carries 1,000 operations waiting on 500 ms calls", "[actors][async]") {
  std::atomic<int> started{0};
  engine_config ec;
  ec.step_workers = 1;
  delayed_harness dh{
    [&](infra::delayed_calls& later, std::shared_ptr<virtual_clock> clk) {
      auto call = [&started, &later, clk](async_call c) {
        // Counted last: the test advances the clock once all
        // 1,000 are counted, so each must have read the time
        // and scheduled its answer by then.
        auto due = clk->now() + 500ms;
        c.context().data()["answered_at"] = format_time(due);
        later.at(due, [c] { c.complete(done()); });
        ++started;
      };
      return one(
        workflow("w", 1).step(1, make_async_step("call", call)).step(2, test::ok("after")));
    },
    ec};
  auto& h = *dh.h;
  std::vector<std::string> ids;
  for (int i = 0; i < 1000; ++i)
    ids.push_back(h.start("w"));
  // All 1,000 calls are in flight at once on one step thread: none is done,
  // since the virtual clock has not moved.
  auto until = std::chrono::steady_clock::now() + 10s;
  while (started < 1000 && std::chrono::steady_clock::now() < until)
    h.pump(10ms);
  REQUIRE(started == 1000);
  CHECK(h.count(ids[0], event_type::step_succeeded) == 0);
  auto t0 = h.clk->now();
  h.clk->advance(500ms);
  for (auto& id : ids) {
    auto op = h.finish(id);
    REQUIRE(op.state == op_state::succeeded);
    CHECK(op.data.at("answered_at") == format_time(t0 + 500ms).c_str());
  }
  // Nothing but the 500 ms of virtual time passed.
  CHECK(h.clk->now() == t0 + 500ms);
}

TEST_CASE("an asynchronous step's exception and late completion", "[actors][async]") {
  call_log calls;
  retry_policy twice;
  twice.max_attempts = 2;
  twice.initial_interval = 10s;
  engine_config ec;
  ec.passivate_after = std::chrono::hours(1); // the actor stays: its generation counts
  harness h{one(workflow("w", 1).step(
              1, make_async_step("call", calls.keeper()).with_timeout(1s).with_policy(twice))),
            nullptr, ec};
  SECTION("a throwing start fails the attempt with the message") {
    auto id = h.start("w", {{"throw", true}});
    auto op = h.finish(id);
    CHECK(op.state == op_state::failed);
    CHECK(op.error.find("no driver") != std::string::npos);
  }
  SECTION("a completion after the timeout is dropped; the retry's counts") {
    auto id = h.start("w");
    auto first = calls.await(1);
    h.clk->advance(1s);
    REQUIRE(h.await(id, event_type::step_timed_out));
    CHECK(first.context().stop().stop_requested());
    CHECK(first.context().stop().reason() == "timed out");
    REQUIRE(h.clk->await_timer(10s));
    h.clk->advance(10s);
    auto second = calls.await(2);
    first.context().data()["from"] = "attempt 1";
    auto dropped = h.eng.stats().steps_discarded.load();
    CHECK(first.complete(done()));
    auto until = std::chrono::steady_clock::now() + 10s;
    while (h.eng.stats().steps_discarded.load() == dropped
           && std::chrono::steady_clock::now() < until)
      h.pump(10ms);
    CHECK(h.eng.stats().steps_discarded.load() == dropped + 1);
    second.context().data()["from"] = "attempt 2";
    CHECK(second.complete(done()));
    CHECK_FALSE(second.complete(fail("twice")));
    auto op = h.finish(id);
    CHECK(op.state == op_state::succeeded);
    CHECK(op.data.at("from") == "attempt 2");
  }
}

TEST_CASE("a crash with an asynchronous attempt in flight runs it again once", "[actors][async]") {
  call_log calls;
  auto wf = [&] { return one(workflow("w", 1).step(1, make_async_step("call", calls.keeper()))); };
  auto st = std::make_shared<memory_store>();
  std::string id;
  {
    harness h{wf(), st};
    id = h.start("w");
    calls.await(1);
  } // the process stops with attempt 1 in flight
  auto dead = calls.await(1);
  CHECK(dead.context().stop().stop_requested());
  harness h{wf(), st};
  auto live = calls.await(2);
  CHECK(live.context().attempt() == 2);
  // The dead attempt's late answer reaches nothing that counts.
  dead.context().data()["from"] = "dead";
  dead.complete(done());
  live.context().data()["from"] = "live";
  live.complete(done());
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.steps[0].attempts == 2);
  CHECK(op.data.at("from") == "live");
  CHECK(calls.size() == 2);
}

namespace {

/// A step actor of the host: answers each attempt with the attempt number
/// in the data, except attempts it is told to hold (answered later).
struct step_host_state {
  std::vector<caf::response_promise> held;
  std::vector<std::pair<std::string, int32_t>> stopped;
};

/// A step actor, and the test's question: how many stops it was told of.
using step_host_actor = step_actor::extend<caf::replies_to<get_atom>::with<int32_t>>;

step_host_actor::behavior_type step_host(step_host_actor::stateful_pointer<step_host_state> self,
                                         std::shared_ptr<std::atomic<int>> hold_first) {
  return {
    [=](step_attempt& a) -> caf::result<step_reply> {
      if (hold_first->exchange(0) > 0) {
        auto rp = self->make_response_promise<step_reply>();
        self->state.held.push_back(rp);
        return rp;
      }
      a.data["attempt"] = a.attempt;
      a.data["key"] = a.idempotency_key;
      return step_reply{done(), std::move(a.data), {}};
    },
    [=](step_stop_atom, const std::string& id, int32_t attempt) {
      self->state.stopped.emplace_back(id, attempt);
      // The held attempt answers after all, late.
      for (auto& rp : self->state.held)
        rp.deliver(step_reply{done(), boost::json::object{{"attempt", -1}}, {}});
      self->state.held.clear();
    },
    [=](get_atom) { return static_cast<int32_t>(self->state.stopped.size()); },
  };
}

} // namespace

TEST_CASE("a step actor of the host carries out the attempts", "[actors][async]") {
  auto hold = std::make_shared<std::atomic<int>>(0);
  step_host_actor host;
  harness h{[&](caf::actor_system& sys, std::shared_ptr<virtual_clock>) {
    host = sys.spawn(step_host, hold);
    return one(workflow("w", 1).step(1, make_actor_step("remote", host).with_timeout(2s)));
  }};
  SECTION("its reply is the attempt's result") {
    auto op = h.finish(h.start("w"));
    CHECK(op.state == op_state::succeeded);
    CHECK(op.data.at("attempt") == 1);
    CHECK(op.data.at("key") == (op.id + ":remote").c_str());
  }
  SECTION("a held attempt times out, is told to stop, and its late reply is dropped") {
    hold->store(1);
    auto id = h.start("w");
    REQUIRE(h.await(id, event_type::step_started));
    // step_started is committed before the attempt and its timeout timer
    // start: move the time only once that timer is armed.
    REQUIRE(h.clk->await_timer(10s));
    h.clk->advance(2s);
    REQUIRE(h.await(id, event_type::step_timed_out));
    REQUIRE(h.clk->await_timer(10s));
    h.clk->advance(10s);
    auto op = h.finish(id);
    CHECK(op.state == op_state::succeeded);
    CHECK(op.steps[0].attempts == 2);
    CHECK(op.data.at("attempt") == 2);
  }
  caf::anon_send_exit(host, caf::exit_reason::user_shutdown);
}
