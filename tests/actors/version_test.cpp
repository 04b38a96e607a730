// Version pinning across restarts: an operation keeps the definition
// version it started with; one whose version is gone fails, visibly.
#include <atomic>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;

namespace {

/// `w` v1: a, gate (its first attempt retries after 30 s), b1.
workflow w_v1(std::atomic<int>* b1_runs = nullptr) {
  auto gate = make_step("gate", [](step_context& ctx) {
    return ctx.attempt() == 1 ? retry_after(30s, "later") : done();
  });
  return workflow("w", 1).step(1, ok("a")).step(2, gate).step(3, ok("b1", b1_runs));
}

/// `w` v2: other steps, and `/token` secret.
workflow w_v2(std::atomic<int>* b2_runs = nullptr) {
  return workflow("w", 2).step(1, ok("a")).step(2, ok("b2", b2_runs)).secret("/token");
}

registry both(std::atomic<int>* b1_runs, std::atomic<int>* b2_runs) {
  registry reg;
  REQUIRE(reg.add(w_v1(b1_runs)));
  REQUIRE(reg.add(w_v2(b2_runs)));
  return reg;
}

/// Starts `w` (v1: the only version registered) and stops the engine while
/// its gate waits for its retry.
std::string started_on_v1(const std::shared_ptr<memory_store>& st, boost::json::object input = {}) {
  harness h{test::one(w_v1()), st};
  auto id = h.start("w", std::move(input));
  REQUIRE(h.await(id, event_type::step_retry_scheduled, "gate"));
  return id;
}

/// Counts the stored events of `id` of `type` (the harness may subscribe
/// only after a failure written at start-up).
size_t stored_events(memory_store& st, const std::string& id, event_type type) {
  auto evs = st.events_after(0, 1000);
  REQUIRE(evs);
  size_t n = 0;
  for (auto& e : *evs)
    n += e.operation_id == id && e.type == type ? 1 : 0;
  return n;
}

/// A clock a second later than the first harness's (ids are made of the
/// time: the operations a restarted engine creates get ids of their own),
/// still before the gate's retry is due.
std::shared_ptr<virtual_clock> later_clock() {
  return std::make_shared<virtual_clock>(from_micros(1'800'000'001'000'000));
}

} // namespace

TEST_CASE("an operation finishes on its version after a newer one is registered",
          "[actors][versions]") {
  auto st = std::make_shared<memory_store>();
  auto id = started_on_v1(st);
  std::atomic<int> b1{0}, b2{0};
  harness h{both(&b1, &b2), st, {}, later_clock()};
  // New operations get the newest version...
  auto fresh = h.start("w");
  // ...the one started before the restart keeps its own.
  h.clk->advance(30s);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.workflow_version == 1);
  REQUIRE(op.steps.size() == 3);
  CHECK(op.steps[2].name == "b1");
  CHECK(op.data.contains("b1"));
  auto other = h.finish(fresh);
  CHECK(other.workflow_version == 2);
  CHECK(other.steps.back().name == "b2");
  CHECK(b1 == 1);
  CHECK(b2 == 1);
}

TEST_CASE("an operation whose version is gone after a restart fails, naming it",
          "[actors][versions]") {
  auto st = std::make_shared<memory_store>();
  auto id = started_on_v1(st, {{"token", "t0ken-v1"}});
  std::atomic<int> b2{0};
  harness h{test::one(w_v2(&b2)), st};
  // Failed at start-up: waiting for it needs no time to pass.
  auto op = h.eng.wait(id, 10s);
  REQUIRE(op);
  CHECK(op->state == op_state::failed);
  CHECK(op->workflow_version == 1);
  CHECK(op->error
        == "unknown workflow 'w' version 1: not registered in this process "
           "(registered: 2)");
  // The step that waited fails with it; the steps before keep their record.
  CHECK(op->steps[0].state == step_state::succeeded);
  CHECK(op->steps[1].state == step_state::failed);
  CHECK(op->steps[1].last_error == op->error);
  CHECK(stored_events(*st, id, event_type::step_failed) == 1);
  CHECK(stored_events(*st, id, event_type::operation_failed) == 1);
  // Written: the store has it, and says so after another restart too.
  auto stored = st->load(id);
  REQUIRE(stored);
  REQUIRE(*stored);
  CHECK((*stored)->state == op_state::failed);
  // The secret paths of the registered versions still mask the input.
  CHECK(op->input->at("token") == "***");
  // A retry cannot run it: refused with the reason; cancel as for any
  // failed operation.
  auto again = h.eng.retry(id);
  REQUIRE(!again);
  CHECK(code_of(again.error()) == errc::invalid_state);
  CHECK(message_of(again.error()).find("unknown workflow 'w' version 1") != std::string::npos);
  auto cancel = h.eng.cancel(id);
  REQUIRE(!cancel);
  CHECK(code_of(cancel.error()) == errc::invalid_state);
  CHECK(b2 == 0);
  CHECK(h.eng.get(id)->state == op_state::failed);
}

TEST_CASE("a passivated operation whose version is gone fails at start, not when due",
          "[actors][versions]") {
  auto st = std::make_shared<memory_store>();
  std::string id;
  {
    harness h{test::one(workflow("nap", 1).step(1, ok("a")).step(2, make_sleep("s", 24h))), st};
    id = h.start("nap");
    REQUIRE(h.await(id, event_type::operation_waiting));
  }
  harness h{test::one(workflow("other", 1).step(1, ok("a"))), st};
  // No time passes: the day-long sleep is not waited for.
  auto op = h.eng.wait(id, 10s);
  REQUIRE(op);
  CHECK(op->error
        == "unknown workflow 'nap' version 1: not registered in this process "
           "(no version is registered)");
  CHECK(op->steps[1].state == step_state::failed);
  CHECK(stored_events(*st, id, event_type::operation_failed) == 1);
  CHECK(h.eng.stats().operations_failed.load() == 1);
}

TEST_CASE("a failed operation whose version is gone is refused a retry, not run",
          "[actors][versions]") {
  auto st = std::make_shared<memory_store>();
  std::string id;
  {
    auto boom = make_step("boom", [](step_context&) { return fail("no"); });
    harness h{test::one(workflow("w", 1).step(1, boom)), st};
    id = h.start("w");
    REQUIRE(h.finish(id).state == op_state::failed);
  }
  harness h{test::one(w_v2()), st};
  auto res = h.eng.retry(id);
  REQUIRE(!res);
  CHECK(code_of(res.error()) == errc::invalid_state);
  CHECK(message_of(res.error())
        == "cannot retry operation '" + id
             + "': unknown workflow 'w' version 1: not registered in this process "
               "(registered: 2)");
  // Nothing was written: the operation is as it was.
  auto op = h.eng.get(id);
  REQUIRE(op);
  CHECK(op->state == op_state::failed);
  CHECK(op->error == "step 'boom': no");
  CHECK(stored_events(*st, id, event_type::operation_failed) == 1);
}
