// Inline steps (`running_inline`): a blocking body that only computes runs
// on the operation's actor, never on a step worker, with the same results,
// retries, failures and compensations as one on the pool.
#include <pthread.h>

#include <atomic>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::one;

namespace {

std::string thread_name() {
  char buf[32] = {};
  pthread_getname_np(pthread_self(), buf, sizeof(buf));
  return buf;
}

/// Writes the name of the thread it ran on into data[step].
step_def where(const std::string& name) {
  return make_step(name, [](step_context& ctx) {
    ctx.data()[ctx.step_name()] = thread_name();
    return done();
  });
}

} // namespace

TEST_CASE("an inline step runs on the operation's actor, a plain one on a worker",
          "[actors][inline]") {
  harness h{one(workflow("w", 1)
                  .step(1, where("here").running_inline())
                  .step(2, where("pool"))
                  .step(3, where("again").running_inline()))};
  auto op = h.finish(h.start("w", {{"keep", 1}}));
  REQUIRE(op.state == op_state::succeeded);
  auto here = std::string{op.data.at("here").as_string()};
  CHECK(here.rfind("sw-step", 0) != 0);
  CHECK(std::string{op.data.at("again").as_string()}.rfind("sw-step", 0) != 0);
  CHECK(std::string{op.data.at("pool").as_string()}.rfind("sw-step", 0) == 0);
  for (auto& s : op.steps)
    CHECK(s.state == step_state::succeeded);
}

TEST_CASE("an inline step keeps the data, retries on the clock and fails like any step",
          "[actors][inline]") {
  std::atomic<int> runs{0};
  retry_policy p;
  p.max_attempts = 3;
  auto flaky = make_step("flaky",
                         [&](step_context& ctx) -> outcome {
                           auto n = ++runs;
                           ctx.data()["tries"] = n;
                           if (n < 2)
                             return retry_after(5s, "not yet");
                           return done();
                         })
                 .with_policy(p)
                 .running_inline();
  auto throws = make_step("throws", [](step_context& ctx) -> outcome {
                  if (ctx.input().contains("boom"))
                    throw std::runtime_error("inline boom");
                  return done();
                }).running_inline();
  harness h{
    one(workflow("w", 1).step(1, where("first").running_inline()).step(2, flaky).step(3, throws))};

  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_retry_scheduled, "flaky"));
  CHECK(runs == 1);
  h.clk->advance(5s);
  auto op = h.finish(id);
  REQUIRE(op.state == op_state::succeeded);
  CHECK(runs == 2);
  CHECK(op.data.contains("first"));
  CHECK(op.data.at("tries").as_int64() == 2);
  CHECK(op.steps[1].attempts == 2);

  auto bad = h.finish(h.start("w", {{"boom", true}}));
  CHECK(bad.state == op_state::failed);
  CHECK(bad.error.find("inline boom") != std::string::npos);
  // The steps before it kept what they wrote.
  CHECK(bad.data.contains("first"));
}

TEST_CASE("an inline compensation runs when a later step fails", "[actors][inline]") {
  std::atomic<int> undone{0};
  auto made = make_step("made", [](step_context&) { return done(); })
                .with_compensation([&](step_context&) {
                  ++undone;
                  return done();
                })
                .running_inline();
  auto fails = make_step("fails", [](step_context&) { return fail("no"); });
  harness h{one(workflow("w", 1).step(1, made).step(2, fails))};
  auto op = h.finish(h.start("w"));
  CHECK(op.state == op_state::failed);
  CHECK(undone == 1);
  CHECK(op.steps[0].compensation == step_state::succeeded);
}

TEST_CASE("only a blocking body may run inline", "[actors][inline]") {
  auto s = make_sleep("nap", 1s);
  s.running_inline();
  auto checked = workflow("w", 1).step(1, s).validate();
  REQUIRE_FALSE(checked);
  CHECK(message_of(checked.error()).find("'nap' runs inline but has no blocking body")
        != std::string::npos);
}
