// Retrying an ended operation of a workflow with a key or a limit: it
// waits for its turn again, as a new operation would, instead of running
// beside the one that took its key or its slot meanwhile.
#include <vector>

#include <catch2/catch.hpp>

#include "tests/actors/harness.hpp"
#include "tests/actors/turnstile.hpp"

using namespace stepwise;
using test::harness;
using test::keyed_input;
using test::turnstile;

namespace {

/// Returns the seq of the first event of `type` of `id` after `after`, or 0.
int64_t seq_of(const harness& h, const std::string& id, event_type type, int64_t after = 0) {
  for (auto& e : h.seen)
    if (e.operation_id == id && e.type == type && e.seq > after)
      return e.seq;
  return 0;
}

} // namespace

TEST_CASE("a retried operation waits for the one that took its key or slot meanwhile",
          "[actors][admission][retry]") {
  turnstile gate;
  gate.fail_once.insert("a");
  registry reg;
  auto keyed = GENERATE(true, false);
  auto wf = workflow("w", 1).step(1, gate.step("s"));
  if (keyed)
    wf.serialize_by("/name");
  else
    wf.limit(1);
  REQUIRE(reg.add(std::move(wf)));
  harness h{std::move(reg)};
  turnstile::opener open_at_end{gate};
  INFO((keyed ? "by key" : "by limit"));
  auto a = h.start("w", keyed_input("n", "a"));
  auto b = h.start("w", keyed_input("n", "b"));
  REQUIRE(gate.await_started(1));
  gate.let_through(1); // a fails
  CHECK(h.finish(a).state == op_state::failed);
  REQUIRE(gate.await_started(2)); // b runs
  auto retried = h.eng.retry(a);
  REQUIRE(retried);
  // a queues behind b instead of running beside it.
  REQUIRE(h.await(a, event_type::operation_queued));
  // The round writes blocked_by to the store; until a's actor has parked,
  // a read reaches the actor's own snapshot, which has it empty.
  auto expected = keyed ? b : std::string{"limit:w"};
  caf::expected<operation> now{operation{}};
  for (int i = 0; i < 1000; ++i) {
    now = h.eng.get(a);
    if (!now || now->blocked_by == expected)
      break;
    h.pump(std::chrono::milliseconds(10));
  }
  REQUIRE(now);
  CHECK(now->state == op_state::pending);
  CHECK(now->blocked_by == expected);
  CHECK(gate.order() == std::vector<std::string>{"a", "b"});
  gate.let_through(1); // b ends: a's turn
  CHECK(h.finish(b).state == op_state::succeeded);
  REQUIRE(gate.await_started(3));
  gate.let_through(1);
  CHECK(h.finish(a).state == op_state::succeeded);
  CHECK(gate.order() == std::vector<std::string>{"a", "b", "a"});
  REQUIRE(h.await(a, event_type::operation_succeeded));
  auto b_ended = seq_of(h, b, event_type::operation_succeeded);
  auto resumed = seq_of(h, a, event_type::operation_failed);
  CHECK(seq_of(h, a, event_type::step_started, resumed) > b_ended);
}
