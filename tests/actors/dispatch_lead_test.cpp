// A blocking step that a timer begins is handed to the workers
// `dispatch_lead` ahead and starts exactly when due, never before.
#include <mutex>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::one;

namespace {

/// When each attempt of the step ran, on the test's clock.
struct run_log {
  std::mutex mtx;
  std::vector<time_point> at;

  void add(time_point t) {
    std::lock_guard<std::mutex> g{mtx};
    at.push_back(t);
  }

  size_t size() {
    std::lock_guard<std::mutex> g{mtx};
    return at.size();
  }
};

/// A workflow whose blocking step retries after 5 s once (timeout 10 s),
/// on a worker or (`here`) inline.
harness::registry_maker retrying(run_log& log, bool here = false) {
  return [&log, here](caf::actor_system&, std::shared_ptr<virtual_clock> clk) {
    auto step = make_step("call",
                          [&log, clk](step_context& ctx) {
                            log.add(clk->now());
                            return ctx.attempt() == 1 ? retry_after(5s, "later") : done();
                          })
                  .with_timeout(10s)
                  .running_inline(here);
    return one(workflow("w", 1).step(1, step));
  };
}

int64_t started(harness& h) {
  return h.eng.stats().steps_started.load();
}

} // namespace

TEST_CASE("a due retry of a blocking step is handed over ahead and starts when due",
          "[actors][lead]") {
  run_log log;
  // An inline body too: begun ahead, it waits for its time on a worker.
  auto here = GENERATE(false, true);
  harness h{retrying(log, here)};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_retry_scheduled));
  auto op = h.eng.get(id);
  REQUIRE(op);
  REQUIRE(op->steps[0].next_attempt_at);
  auto due = *op->steps[0].next_attempt_at;
  // 50 ms (the default lead) before it is due, the actor begins the
  // attempt: it counts as started, but only the clock holds it.
  h.clk->advance(due - h.clk->now() - 50ms);
  // Its step's timeout counts from when it is due, not from the hand-over.
  REQUIRE(h.eventually([&] { return started(h) == 2 && h.clk->pending_at(due); }));
  CHECK(h.clk->pending_at(due + 10s));
  CHECK(!h.clk->pending_at(due + 10s - 50ms));
  CHECK(log.size() == 1);
  SECTION("it starts when due") {
    h.clk->advance(50ms);
    auto fin = h.finish(id);
    CHECK(fin.state == op_state::succeeded);
    REQUIRE(log.size() == 2);
    CHECK(log.at[1] == due);
    CHECK(fin.steps[0].attempts == 2);
  }
  SECTION("a cancel before it is due drops what the attempt then returns") {
    auto res = h.eng.cancel(id);
    REQUIRE(res);
    CHECK(res->state == op_state::canceled);
    h.clk->advance(50ms);
    // Like a job queued behind others, it still runs; its result counts
    // for nothing.
    REQUIRE(h.eventually([&] { return log.size() == 2; }));
    auto fin = h.finish(id);
    CHECK(fin.state == op_state::canceled);
    CHECK(h.count(id, event_type::step_succeeded) == 0);
  }
}

TEST_CASE("without a lead, a due retry begins at its due time", "[actors][lead]") {
  run_log log;
  engine_config ec;
  ec.dispatch_lead = duration{0};
  harness h{retrying(log), nullptr, ec};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_retry_scheduled));
  auto due = *h.eng.get(id)->steps[0].next_attempt_at;
  h.clk->advance(due - h.clk->now() - 50ms);
  // The actor's own timer waits for the due time.
  REQUIRE(h.eventually([&] { return h.clk->pending_at(due); }));
  CHECK(started(h) == 1);
  h.clk->advance(50ms);
  auto fin = h.finish(id);
  CHECK(fin.state == op_state::succeeded);
  REQUIRE(log.size() == 2);
  CHECK(log.at[1] == due);
}

TEST_CASE("an engine stopped while its clock holds a due attempt leaves no cycle behind",
          "[actors][lead]") {
  // The attempt's job holds its context, which holds the clock: the calls
  // the clock still holds are dropped when the engine stops, else the clock
  // (and what the job holds) would never be freed.
  run_log log;
  std::weak_ptr<virtual_clock> gone;
  {
    auto clk = std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
    gone = clk;
    time_point due;
    {
      harness h{retrying(log), nullptr, {}, clk};
      auto id = h.start("w");
      REQUIRE(h.await(id, event_type::step_retry_scheduled));
      due = *h.eng.get(id)->steps[0].next_attempt_at;
      h.clk->advance(due - h.clk->now() - 50ms);
      REQUIRE(h.eventually([&] { return h.clk->pending_at(due); }));
    }
    CHECK(!clk->pending_at(due)); // dropped with the engine
  }
  CHECK(gone.expired());
}
