// Pause and resume (asked for, or a policy that ran out of attempts), and
// retry of a succeeded operation's incomplete steps.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;
using test::one;

namespace {

bool refused(const caf::expected<operation>& res) {
  return !res && code_of(res.error()) == errc::invalid_state;
}

/// Waits until `n` operations sleep (passivated: no actor).
bool sleeping(harness& h, int64_t n) {
  return h.eventually([&] { return h.eng.stats().operations_sleeping.load() == n; });
}

/// A step that blocks until the test opens it, then reports whether it
/// was asked to stop (and why) in the data.
struct held_step {
  std::mutex mtx;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> runs{0};

  step_def step(std::string name) {
    return make_step(std::move(name), [this](step_context& ctx) {
      ++runs;
      std::unique_lock<std::mutex> g{mtx};
      cv.wait(g, [&] { return open; });
      ctx.data()["stopped_by"] = ctx.stop().stop_requested() ? ctx.stop().reason() : "";
      return done();
    });
  }

  void release() {
    {
      std::lock_guard<std::mutex> g{mtx};
      open = true;
    }
    cv.notify_all();
  }
};

} // namespace

TEST_CASE("pausing an operation whose retry is due stops it until resumed", "[actors][pause]") {
  std::atomic<int> runs{0};
  auto flaky = make_step("flaky", [&](step_context& ctx) {
    ++runs;
    return ctx.attempt() == 1 ? retry_after(10s, "not yet") : done();
  });
  harness h{one(workflow("w", 1).step(1, flaky).step(2, ok("after")))};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_retry_scheduled));
  auto paused = h.eng.pause(id);
  REQUIRE(paused);
  CHECK(paused->state == op_state::paused);
  REQUIRE(h.await(id, event_type::operation_paused));
  CHECK(sleeping(h, 1)); // a paused operation holds no actor
  h.clk->advance(1h);    // the retry that was due does not run
  CHECK(runs == 1);
  auto shown = h.eng.get(id);
  REQUIRE(shown);
  CHECK(shown->state == op_state::paused);
  CHECK(shown->steps[0].state == step_state::pending);
  CHECK(shown->steps[0].last_error == "not yet");
  CHECK(refused(h.eng.pause(id)));
  auto resumed = h.eng.resume(id);
  REQUIRE(resumed);
  REQUIRE(h.await(id, event_type::operation_resumed));
  // A fresh budget: the step starts again at attempt 1 (which retries).
  REQUIRE(h.await_count(id, event_type::step_retry_scheduled, 2));
  h.clk->advance(10s);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(runs == 3);
  CHECK(op.steps[0].attempts == 2);
  CHECK(refused(h.eng.resume(id)));
}

TEST_CASE("pausing during an attempt stops it and pauses at the next step boundary",
          "[actors][pause]") {
  held_step first;
  std::atomic<int> later{0};
  harness h{one(workflow("w", 1).step(1, first.step("first")).step(2, ok("second", &later)))};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_started, "first"));
  auto asked = h.eng.pause(id, "alice");
  REQUIRE(asked);
  CHECK(asked->state == op_state::in_progress);
  CHECK(asked->pause_requested);
  first.release();
  REQUIRE(h.await(id, event_type::operation_paused));
  auto op = h.eng.get(id);
  REQUIRE(op);
  CHECK(op->state == op_state::paused);
  CHECK_FALSE(op->pause_requested);
  CHECK(op->steps[0].state == step_state::succeeded);
  CHECK(op->data.at("stopped_by") == "paused");
  CHECK(op->steps[1].state == step_state::pending);
  CHECK(later == 0);
  REQUIRE(h.eng.resume(id, "bob"));
  auto fin = h.finish(id);
  CHECK(fin.state == op_state::succeeded);
  CHECK(later == 1);
  CHECK(first.runs == 1);
  // Who did what: the pause taken when the attempt ended names who asked
  // for it; the steps' own events name nobody.
  auto log = h.eng.events(0, 1000);
  REQUIRE(log);
  for (auto& e : *log) {
    INFO(to_string(e.type));
    if (e.type == event_type::operation_paused)
      CHECK(e.by == "alice");
    else if (e.type == event_type::operation_resumed)
      CHECK(e.by == "bob");
    else if (e.type == event_type::step_succeeded)
      CHECK(e.by.empty());
  }
}

TEST_CASE("resume withdraws a pause not taken yet", "[actors][pause]") {
  held_step first;
  harness h{one(workflow("w", 1).step(1, first.step("first")).step(2, ok("second")))};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_started, "first"));
  REQUIRE(h.eng.pause(id));
  auto withdrawn = h.eng.resume(id);
  REQUIRE(withdrawn);
  CHECK_FALSE(withdrawn->pause_requested);
  first.release();
  auto fin = h.finish(id);
  CHECK(fin.state == op_state::succeeded);
  CHECK(h.count(id, event_type::operation_paused) == 0);
}

TEST_CASE("a policy that runs out of attempts pauses; resume gives a fresh budget",
          "[actors][pause]") {
  std::atomic<bool> fixed{false};
  std::atomic<int> runs{0};
  retry_policy twice;
  twice.max_attempts = 2;
  twice.initial_interval = 1s;
  twice.pause_when_exhausted = true;
  auto quota = make_step("quota", [&](step_context&) {
                 ++runs;
                 return fixed ? done() : retry_after(1s, "quota exceeded");
               }).with_policy(twice);
  auto st = std::make_shared<memory_store>();
  std::string id;
  {
    harness h{one(workflow("w", 1).step(1, quota)), st};
    id = h.start("w");
    REQUIRE(h.await(id, event_type::step_retry_scheduled));
    h.clk->advance(1s);
    REQUIRE(h.await(id, event_type::operation_paused));
    auto op = h.eng.get(id);
    REQUIRE(op);
    CHECK(op->state == op_state::paused);
    CHECK(op->steps[0].attempts == 2);
    CHECK(h.count(id, event_type::operation_failed) == 0);
    std::string why;
    for (auto& e : h.seen)
      if (e.operation_id == id && e.type == event_type::operation_paused)
        why = e.error;
    CHECK(why.find("gave up after 2 attempts: quota exceeded") != std::string::npos);
  } // the process stops while the operation is paused
  harness h{one(workflow("w", 1).step(1, quota)), st};
  h.clk->advance(1h);
  CHECK(runs == 2); // still paused after the restart
  fixed = true;
  REQUIRE(h.eng.resume(id));
  auto fin = h.finish(id);
  CHECK(fin.state == op_state::succeeded);
  CHECK(fin.steps[0].attempts == 1);
  CHECK(runs == 3);
}

TEST_CASE("a paused operation can be canceled, and fails at its deadline", "[actors][pause]") {
  auto later = make_step("later", [](step_context&) { return retry_after(1h, "later"); });
  harness h{one(workflow("w", 1).step(1, later))};
  SECTION("cancel") {
    auto id = h.start("w");
    REQUIRE(h.await(id, event_type::step_retry_scheduled));
    REQUIRE(h.eng.pause(id));
    REQUIRE(h.eng.cancel(id));
    CHECK(h.finish(id).state == op_state::canceled);
  }
  SECTION("deadline") {
    auto id = h.start_with_deadline("w", 1min);
    REQUIRE(h.await(id, event_type::step_retry_scheduled));
    REQUIRE(h.eng.pause(id));
    REQUIRE(sleeping(h, 1));
    h.clk->advance(2min);
    auto op = h.finish(id);
    CHECK(op.state == op_state::failed);
    CHECK(op.error == "deadline exceeded");
  }
  SECTION("refusals") {
    auto done_id = h.start("w");
    REQUIRE(h.eng.cancel(done_id));
    h.finish(done_id);
    CHECK(refused(h.eng.pause(done_id)));
    CHECK(refused(h.eng.resume(done_id)));
    CHECK(!h.eng.pause("op-unknown"));
  }
}

TEST_CASE("retry of a succeeded operation runs only its incomplete steps again",
          "[actors][retry]") {
  std::atomic<bool> bucket_free{false};
  std::atomic<int> firsts{0};
  std::atomic<int> lasts{0};
  auto cleanup = make_step("cleanup", [&](step_context&) {
                   return bucket_free ? done() : fail("bucket busy");
                 }).as_best_effort();
  auto other = make_step("other", [](step_context&) { return fail("dns busy"); }).as_best_effort();
  harness h{one(workflow("w", 1)
                  .step(1, ok("first", &firsts))
                  .step(2, cleanup)
                  .step(3, other)
                  .step(4, ok("last", &lasts)))};
  auto id = h.start("w");
  auto op = h.finish(id);
  REQUIRE(op.state == op_state::succeeded);
  REQUIRE(op.steps[1].state == step_state::incomplete);
  bucket_free = true;
  auto again = h.eng.retry(id);
  REQUIRE(again);
  REQUIRE(h.await_count(id, event_type::operation_succeeded, 2));
  auto fin = h.eng.get(id);
  REQUIRE(fin);
  CHECK(fin->state == op_state::succeeded);
  CHECK(fin->steps[1].state == step_state::succeeded);
  CHECK(fin->steps[1].attempts == 1);
  CHECK(fin->steps[2].state == step_state::incomplete); // still busy
  CHECK(firsts == 1);
  CHECK(lasts == 1);
}

TEST_CASE("retry of a succeeded operation with nothing incomplete is refused", "[actors][retry]") {
  harness h{one(workflow("w", 1).step(1, ok("a")))};
  auto id = h.start("w");
  REQUIRE(h.finish(id).state == op_state::succeeded);
  auto again = h.eng.retry(id);
  REQUIRE(refused(again));
  CHECK(message_of(again.error()).find("no incomplete steps") != std::string::npos);
}
