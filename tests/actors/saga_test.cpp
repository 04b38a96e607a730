// Compensations (sagas) and events emitted by steps, on the virtual clock.
#include <atomic>
#include <mutex>

#include <catch2/catch.hpp>

#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::one;

namespace {

// Records the order in which steps and compensations ran.
struct journal {
  std::mutex mtx;
  std::vector<std::string> entries;

  void add(std::string x) {
    std::lock_guard<std::mutex> g{mtx};
    entries.push_back(std::move(x));
  }

  step_def undoable(const std::string& name) {
    return make_step(name,
                     [this, name](step_context&) {
                       add(name);
                       return done();
                     })
      .with_compensation([this, name](step_context&) {
        add("undo " + name);
        return done();
      });
  }
};

outcome refuse(step_context&) {
  return fail("no capacity");
}

} // namespace

TEST_CASE("a failed step runs the compensations of succeeded steps in reverse", "[actors][saga]") {
  journal j;
  auto plain = make_step("plain", [&](step_context&) {
    j.add("plain");
    return done();
  });
  harness h{one(workflow("saga", 1)
                  .step(1, j.undoable("build"))
                  .step(2, plain)
                  .step(3, j.undoable("reserve"))
                  .step(4, make_step("launch", refuse))
                  .step(5, j.undoable("never")))};
  auto id = h.start("saga");
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error == "step 'launch': no capacity");
  CHECK(j.entries
        == std::vector<std::string>{"build", "plain", "reserve", "undo reserve", "undo build"});
  CHECK(op.steps[0].compensation == step_state::succeeded);
  CHECK(op.steps[1].compensation == step_state::pending);
  CHECK(op.steps[2].compensation == step_state::succeeded);
  CHECK(op.steps[4].compensation == step_state::pending);
  CHECK(h.count(id, event_type::compensation_started) == 2);
  CHECK(h.count(id, event_type::compensation_succeeded) == 2);
  CHECK(h.count(id, event_type::operation_failed) == 1);
  // The events of the unwind say the operation was compensating.
  REQUIRE(h.await([&](const event& e) {
    return e.operation_id == id && e.type == event_type::compensation_started && e.step == "reserve"
           && e.state == "compensating";
  }));
}

TEST_CASE("a canceled saga compensates, then ends canceled", "[actors][saga]") {
  journal j;
  auto wait = make_step("wait", [](step_context&) { return retry_after(1h, "image not ready"); });
  harness h{one(workflow("saga", 1).step(1, j.undoable("build")).step(2, wait))};
  auto id = h.start("saga");
  REQUIRE(h.await(id, event_type::step_retry_scheduled));
  auto canceled = h.eng.cancel(id);
  REQUIRE(canceled);
  auto op = h.finish(id);
  CHECK(op.state == op_state::canceled);
  CHECK(op.error.empty());
  CHECK(j.entries == std::vector<std::string>{"build", "undo build"});
  CHECK(h.count(id, event_type::compensation_succeeded) == 1);
  CHECK(h.count(id, event_type::operation_canceled) == 1);
}

TEST_CASE("a compensation that asks for a retry runs again on the clock; one "
          "that fails is reported",
          "[actors][saga]") {
  std::atomic<int> undo_runs{0};
  auto flaky_undo =
    make_step("a", [](step_context&) { return done(); }).with_compensation([&](step_context& ctx) {
      ++undo_runs;
      return ctx.attempt() < 2 ? retry_after(10s, "busy") : done();
    });
  auto broken_undo = make_step("b", [](step_context&) {
                       return done();
                     }).with_compensation([](step_context&) -> outcome {
    throw std::runtime_error("delete refused");
  });
  harness h{one(
    workflow("saga", 1).step(1, flaky_undo).step(2, broken_undo).step(3, make_step("c", refuse)))};
  auto id = h.start("saga");
  REQUIRE(h.await(id, event_type::compensation_failed));
  REQUIRE(h.await([&](const event& e) {
    return e.operation_id == id && e.type == event_type::operation_waiting && e.step == "a"
           && e.error == "busy";
  }));
  // `a`'s compensation waits for the clock.
  auto mid = h.eng.get(id);
  REQUIRE(mid);
  CHECK(mid->state == op_state::compensating);
  CHECK(undo_runs == 1);
  h.clk->advance(10s);
  auto op = h.finish(id);
  CHECK(undo_runs == 2);
  CHECK(op.state == op_state::failed);
  CHECK(op.error == "step 'c': no capacity; compensation failed for 'b'");
  CHECK(op.steps[0].compensation == step_state::succeeded);
  CHECK(op.steps[0].compensation_attempts == 2);
  CHECK(op.steps[1].compensation == step_state::failed);
  CHECK(op.steps[1].last_error == "step threw: delete refused");
}

TEST_CASE("a compensation interrupted by a restart runs again", "[actors][saga]") {
  std::atomic<int> undo_runs{0};
  auto wf = [&] {
    auto a = make_step("a", [](step_context&) {
               return done();
             }).with_compensation([&](step_context& ctx) {
      ++undo_runs;
      return ctx.attempt() == 1 ? retry_after(1min, "busy") : done();
    });
    return one(workflow("saga", 1).step(1, a).step(2, make_step("b", refuse)));
  };
  auto st = std::make_shared<memory_store>();
  std::string id;
  {
    harness h{wf(), st};
    id = h.start("saga");
    REQUIRE(h.await(id, event_type::operation_waiting));
    auto op = h.eng.get(id);
    REQUIRE(op);
    CHECK(op->steps[0].compensation == step_state::waiting);
  }
  harness h{wf(), st};
  h.clk->advance(1min);
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.steps[0].compensation == step_state::succeeded);
  CHECK(undo_runs == 2);
}

TEST_CASE("retry after an unwind runs the compensated steps again", "[actors][saga]") {
  journal j;
  std::atomic<bool> capacity{false};
  auto launch =
    make_step("launch", [&](step_context&) { return capacity ? done() : fail("no capacity"); });
  harness h{one(workflow("saga", 1).step(1, j.undoable("build")).step(2, launch))};
  auto id = h.start("saga");
  CHECK(h.finish(id).state == op_state::failed);
  capacity = true;
  REQUIRE(h.eng.retry(id));
  REQUIRE(h.await(id, event_type::operation_succeeded));
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(j.entries == std::vector<std::string>{"build", "undo build", "build"});
  CHECK(op.steps[0].compensation == step_state::pending);
}

TEST_CASE("events a step emits are logged with its result, secrets masked", "[actors][saga]") {
  auto report = make_step("report", [](step_context& ctx) {
    if (ctx.attempt() == 1) {
      // A retried attempt's events are logged too: emit only on completion.
      return retry_after(1s, "in progress");
    }
    boost::json::object extra{
      {"request_id", "r-1"}, {"status", "COMPLETE"}, {"outputs", {{"password", "hunter2"}}}};
    ctx.emit(event_type::infrastructure_task_completed, std::move(extra));
    return done();
  });
  harness h{one(workflow("w", 1).step(1, report).secret("/password"))};
  auto id = h.start("w", {{"password", "hunter2"}});
  REQUIRE(h.await(id, event_type::step_retry_scheduled));
  h.clk->advance(1s);
  h.finish(id);
  CHECK(h.count(id, event_type::infrastructure_task_completed) == 1);
  std::vector<event_type> order;
  const event* completed = nullptr;
  for (auto& e : h.seen) {
    if (e.operation_id != id)
      continue;
    order.push_back(e.type);
    if (e.type == event_type::infrastructure_task_completed)
      completed = &e;
  }
  REQUIRE(completed != nullptr);
  CHECK(completed->step == "report");
  CHECK(completed->attempt == 2);
  CHECK(completed->extra.at("request_id") == "r-1");
  CHECK(completed->extra.at("outputs").at("password") == "***");
  // Logged before the step's own success.
  auto at = std::find(order.begin(), order.end(), event_type::infrastructure_task_completed);
  REQUIRE(at + 1 != order.end());
  CHECK(*(at + 1) == event_type::step_succeeded);
}

TEST_CASE("an event a compensation emits names the compensation's attempt", "[actors][saga]") {
  auto undo =
    make_step("a", [](step_context&) { return done(); }).with_compensation([](step_context& ctx) {
      if (ctx.attempt() == 1)
        return retry_after(1s, "busy");
      ctx.emit(event_type::infrastructure_task_completed, {{"status", "COMPLETE"}});
      return done();
    });
  harness h{one(workflow("saga", 1).step(1, undo).step(2, make_step("b", refuse)))};
  auto id = h.start("saga");
  REQUIRE(h.await(id, event_type::operation_waiting));
  h.clk->advance(1s);
  REQUIRE(h.await(id, event_type::infrastructure_task_completed));
  h.finish(id);
  for (auto& e : h.seen)
    if (e.operation_id == id && e.type == event_type::infrastructure_task_completed) {
      CHECK(e.step == "a");
      CHECK(e.attempt == 2);
      CHECK(e.state == "compensating");
    }
}
