#include <atomic>
#include <stdexcept>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;
using test::one;

TEST_CASE("steps run in weight order and each is checkpointed", "[actors]") {
  std::vector<std::string> order;
  std::mutex mtx;
  auto rec = [&](std::string n) {
    return make_step(n, [&, n](step_context&) {
      std::lock_guard<std::mutex> g{mtx};
      order.push_back(n);
      return done();
    });
  };
  harness h{one(workflow("w", 1).step(30, rec("c")).step(10, rec("a")).step(20, rec("b")))};
  auto id = h.start("w");
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(order == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(op.steps.size() == 3);
  for (auto& s : op.steps) {
    CHECK(s.state == step_state::succeeded);
    CHECK(s.attempts == 1);
  }
  CHECK(h.count(id, event_type::step_succeeded) == 3);
  CHECK(h.count(id, event_type::operation_succeeded) == 1);
}

TEST_CASE("retry_after runs the same step again when the clock says so", "[actors]") {
  std::atomic<int> runs{0};
  auto flaky = make_step("flaky", [&](step_context& ctx) {
    ++runs;
    return ctx.attempt() < 3 ? retry_after(5s, "not ready") : done();
  });
  harness h{one(workflow("w", 1).step(1, ok("a")).step(2, flaky).step(3, ok("c")))};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_retry_scheduled));
  auto op = h.eng.get(id);
  REQUIRE(op);
  CHECK(op->state == op_state::waiting);
  CHECK(op->steps[1].next_attempt_at == h.clk->now() + 5s);
  CHECK(op->steps[1].last_error == "not ready");
  CHECK(runs == 1);
  h.clk->advance(4s);
  CHECK(runs == 1);
  h.clk->advance(1s);
  REQUIRE(h.await([&](const event& e) {
    return e.operation_id == id && e.type == event_type::step_retry_scheduled && e.attempt == 2;
  }));
  h.clk->advance(5s);
  auto fin = h.finish(id);
  CHECK(fin.state == op_state::succeeded);
  CHECK(fin.steps[1].attempts == 3);
  CHECK(runs == 3);
}

TEST_CASE("a long wait passivates the actor and wakes it when due", "[actors]") {
  std::atomic<int> runs{0};
  auto slow = make_step("slow", [&](step_context& ctx) {
    ++runs;
    return ctx.attempt() == 1 ? retry_after(std::chrono::hours(1), "later") : done();
  });
  harness h{one(workflow("w", 1).step(1, slow).step(2, make_sleep("nap", std::chrono::hours(2))))};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_retry_scheduled));
  // The actor hands its wake-up time to the dispatcher and stops.
  auto& m = h.eng.stats();
  CHECK(h.eventually([&] { return m.operations_sleeping.load() == 1; }));
  // Addressing a sleeping operation answers from the store.
  auto op = h.eng.get(id);
  REQUIRE(op);
  CHECK(op->state == op_state::waiting);
  h.clk->advance(std::chrono::hours(1));
  REQUIRE(h.await(id, event_type::operation_waiting, "nap"));
  h.clk->advance(std::chrono::hours(2));
  auto fin = h.finish(id);
  CHECK(fin.state == op_state::succeeded);
  CHECK(fin.steps[1].state == step_state::succeeded);
  CHECK(runs == 2);
}

TEST_CASE("a passivated operation is read back ahead of its due time and runs on time",
          "[actors]") {
  std::atomic<int> runs{0};
  std::atomic<int64_t> ran_at{0};
  std::shared_ptr<virtual_clock> clk;
  auto after = make_step("after", [&](step_context&) {
    ++runs;
    ran_at = to_micros(clk->now());
    return done();
  });
  engine_config ec;
  ec.passivate_after = 10s;
  ec.wake_lead = 2s;
  harness h{one(workflow("w", 1).step(1, ok("a")).step(2, make_sleep("nap", 1h)).step(3, after)),
            nullptr, ec};
  clk = h.clk;
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::operation_waiting, "nap"));
  auto& m = h.eng.stats();
  REQUIRE(h.eventually([&] { return m.operations_sleeping.load() == 1; }));
  auto due = to_micros(*h.eng.get(id)->wake_at);
  // One second before it is due: read back, its actor waiting for the
  // exact time, the step not run yet.
  h.clk->advance(1h - 1s);
  CHECK(h.eventually(
    [&] { return m.operations_sleeping.load() == 0 && m.timers_pending.load() == 1; }));
  CHECK(m.operations_live.load() == 1);
  CHECK(runs == 0);
  h.clk->advance(1s);
  auto fin = h.finish(id);
  CHECK(fin.state == op_state::succeeded);
  CHECK(runs == 1);
  CHECK(ran_at == due);
}

namespace {

/// A memory store that counts the operations read back one by one.
struct counting_store : memory_store {
  std::atomic<int> loads{0};
  caf::expected<std::optional<operation>> load(const std::string& id) override {
    ++loads;
    return memory_store::load(id);
  }
};

} // namespace

TEST_CASE("an operation whose deadline is nearer than wake_lead keeps its actor", "[actors]") {
  auto later = make_step("later", [](step_context&) { return retry_after(2h, "later"); });
  engine_config ec;
  ec.passivate_after = 10s;
  ec.wake_lead = 2s;
  auto st = std::make_shared<counting_store>();
  harness h{one(workflow("w", 1).step(1, later)), st, ec};
  auto id = h.start_with_deadline("w", 1h);
  REQUIRE(h.await(id, event_type::step_retry_scheduled));
  auto& m = h.eng.stats();
  REQUIRE(h.eventually([&] { return m.operations_sleeping.load() == 1; }));
  auto before = st->loads.load();
  // Read back a second before its deadline, it stays: passivating again
  // would have it read back at once, over and over until the deadline.
  h.clk->advance(1h - 1s);
  REQUIRE(h.eventually([&] { return m.operations_live.load() == 1; }));
  h.clk->advance(1s);
  REQUIRE(h.await(id, event_type::operation_failed));
  CHECK(st->loads.load() - before == 1);
}

TEST_CASE("a best-effort step that fails is recorded incomplete", "[actors]") {
  auto bad =
    make_step("cleanup", [](step_context&) { return fail("bucket busy"); }).as_best_effort();
  harness h{one(workflow("w", 1).step(1, bad).step(2, ok("b")))};
  auto id = h.start("w");
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.steps[0].state == step_state::incomplete);
  CHECK(op.steps[0].last_error == "bucket busy");
  CHECK(op.steps[1].state == step_state::succeeded);
  CHECK(h.count(id, event_type::step_incomplete) == 1);
}

TEST_CASE("a false condition skips the step and records it", "[actors]") {
  std::atomic<int> runs{0};
  auto maybe = ok("maybe", &runs);
  maybe.when([](const step_context& ctx) { return ctx.input().contains("go"); });
  harness h{one(workflow("w", 1).step(1, maybe))};
  auto skipped = h.finish(h.start("w"));
  CHECK(skipped.steps[0].state == step_state::skipped);
  CHECK(runs == 0);
  auto ran = h.finish(h.start("w", {{"go", true}}));
  CHECK(ran.steps[0].state == step_state::succeeded);
  CHECK(runs == 1);
}

TEST_CASE("a retry policy bounds attempts and fails the operation", "[actors]") {
  retry_policy p;
  p.max_attempts = 3;
  auto never =
    make_step("never", [](step_context&) { return retry_after(1s, "nope"); }).with_policy(p);
  harness h{one(workflow("w", 1).step(1, never))};
  auto id = h.start("w");
  for (int i = 1; i < 3; ++i) {
    REQUIRE(h.await([&](const event& e) {
      return e.operation_id == id && e.type == event_type::step_retry_scheduled && e.attempt == i;
    }));
    h.clk->advance(1s);
  }
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.steps[0].attempts == 3);
  CHECK(op.error.find("gave up after 3 attempts") != std::string::npos);
}

TEST_CASE("max elapsed counts from the first attempt", "[actors]") {
  retry_policy p;
  p.max_elapsed = 10s;
  auto never =
    make_step("never", [](step_context&) { return retry_after(4s, "nope"); }).with_policy(p);
  harness h{one(workflow("w", 1).step(1, never))};
  // Time spent before the first attempt must not count: move the clock
  // before starting.
  h.clk->advance(std::chrono::hours(5));
  auto id = h.start("w");
  for (int i = 1; i <= 2; ++i) {
    REQUIRE(h.await([&](const event& e) {
      return e.operation_id == id && e.type == event_type::step_retry_scheduled && e.attempt == i;
    }));
    h.clk->advance(4s);
  }
  // Attempt 3 ran at +8 s; a fourth at +12 s would pass the 10 s budget.
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.steps[0].attempts == 3);
}

TEST_CASE("a step that overruns its timeout is timed out and retried", "[actors]") {
  std::atomic<bool> release{false};
  std::atomic<int> runs{0};
  retry_policy p;
  p.initial_interval = 2s;
  auto stuck = make_step("stuck",
                         [&](step_context& ctx) {
                           ++runs;
                           if (ctx.attempt() == 1)
                             while (!release)
                               std::this_thread::yield();
                           return done();
                         })
                 .with_timeout(30s)
                 .with_policy(p);
  harness h{one(workflow("w", 1).step(1, stuck))};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_started));
  while (runs.load() == 0)
    std::this_thread::yield();
  h.clk->advance(30s);
  REQUIRE(h.await(id, event_type::step_timed_out));
  REQUIRE(h.await(id, event_type::step_retry_scheduled));
  h.clk->advance(2s);
  auto op = h.finish(id);
  release = true;
  CHECK(op.state == op_state::succeeded);
  CHECK(op.steps[0].attempts == 2);
}

TEST_CASE("cancel while waiting makes the timer stale", "[actors]") {
  std::atomic<int> runs{0};
  auto later = make_step("later", [&](step_context&) {
    ++runs;
    return retry_after(10s, "wait");
  });
  harness h{one(workflow("w", 1).step(1, later))};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_retry_scheduled));
  auto res = h.eng.cancel(id);
  REQUIRE(res);
  auto op = h.finish(id);
  CHECK(op.state == op_state::canceled);
  h.clk->advance(60s);
  CHECK(runs == 1);
  CHECK(h.count(id, event_type::operation_canceled) == 1);
  auto again = h.eng.cancel(id);
  REQUIRE(!again);
  CHECK(code_of(again.error()) == errc::invalid_state);
  auto unknown = h.eng.cancel("op-nope");
  REQUIRE(!unknown);
  CHECK(code_of(unknown.error()) == errc::not_found);
}

TEST_CASE("retry resumes a failed operation at its failed step", "[actors]") {
  std::atomic<int> first{0};
  std::atomic<int> second{0};
  auto shaky =
    make_step("shaky", [&](step_context&) { return ++second == 1 ? fail("boom") : done(); });
  harness h{one(workflow("w", 1).step(1, ok("a", &first)).step(2, shaky).step(3, ok("c")))};
  auto id = h.start("w");
  auto failed = h.finish(id);
  CHECK(failed.state == op_state::failed);
  CHECK(failed.error == "step 'shaky': boom");
  auto nope = h.eng.retry("op-nope");
  CHECK(!nope);
  h.seen.clear();
  auto res = h.eng.retry(id);
  REQUIRE(res);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(first == 1);
  CHECK(second == 2);
  auto again = h.eng.retry(id);
  REQUIRE(!again);
  CHECK(code_of(again.error()) == errc::invalid_state);
}

TEST_CASE("a deadline fails an operation that is still running", "[actors]") {
  auto later = make_step("later", [](step_context&) { return retry_after(4s, "wait"); });
  harness h{one(workflow("w", 1).step(1, later))};
  auto id = h.start_with_deadline("w", 10s);
  REQUIRE(h.await(id, event_type::step_retry_scheduled));
  h.clk->advance(10s);
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error == "deadline exceeded");
}

TEST_CASE("a thrown exception is a failure with its message", "[actors]") {
  auto thrower = make_step(
    "thrower", [](step_context&) -> outcome { throw std::runtime_error("disk on fire"); });
  harness h{one(workflow("w", 1).step(1, thrower))};
  auto op = h.finish(h.start("w"));
  CHECK(op.state == op_state::failed);
  CHECK(op.steps[0].last_error == "step threw: disk on fire");
}

TEST_CASE("secrets are masked in output and scrubbed from errors", "[actors]") {
  auto leak = make_step("leak", [](step_context& ctx) {
    ctx.set_transient("token", "tok-123", true);
    auto pw = ctx.input().at("creds").at("password").as_string();
    return fail("login with " + std::string{pw} + " and tok-123 refused");
  });
  harness h{one(workflow("w", 1).step(1, leak).secret("/creds/password"))};
  boost::json::object in{{"creds", {{"user", "bob"}, {"password", "hunter2"}}}};
  auto op = h.finish(h.start("w", in));
  CHECK(op.input->at("creds").at("password") == "***");
  CHECK(op.input->at("creds").at("user") == "bob");
  CHECK(op.steps[0].last_error == "login with *** and *** refused");
  for (auto& e : h.seen)
    CHECK(e.error.find("hunter2") == std::string::npos);
}

TEST_CASE("an idempotency key replays the same request and rejects another", "[actors]") {
  harness h{one(workflow("w", 1).step(1, ok("a")))};
  auto id = h.start("w", {{"x", 1}}, "k1");
  start_request req;
  req.workflow = "w";
  req.input = {{"x", 1}};
  req.idempotency_key = "k1";
  auto again = h.eng.start(req);
  REQUIRE(again);
  CHECK(!again->created);
  CHECK(again->op.id == id);
  req.input = {{"x", 2}};
  auto other = h.eng.start(req);
  REQUIRE(!other);
  CHECK(code_of(other.error()) == errc::idempotency_conflict);
  req.workflow = "nope";
  auto unknown = h.eng.start(req);
  REQUIRE(!unknown);
  CHECK(code_of(unknown.error()) == errc::unknown_workflow);
}
