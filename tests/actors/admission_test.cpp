// Admission: one operation per serialization key at a time, concurrency
// limits per workflow, FIFO queues that survive restarts and cancel.
#include <algorithm>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/harness.hpp"
#include "tests/actors/turnstile.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::keyed_input;
using test::ok;
using test::turnstile;

namespace {

std::string blocked_by(harness& h, const std::string& id) {
  auto op = h.eng.get(id);
  REQUIRE(op);
  return op->blocked_by;
}

/// Waits until the last round saw `queued` and `running` for `wf`.
bool counts_are(harness& h, const std::string& wf, int64_t queued, int64_t running) {
  for (int i = 0; i < 200; ++i) {
    auto c = h.eng.admission();
    if (c.count(wf) && c[wf].queued == queued && c[wf].running == running)
      return true;
    h.pump(10ms);
  }
  return false;
}

} // namespace

TEST_CASE("operations with the same key run one at a time, in creation order",
          "[actors][admission]") {
  turnstile gate;
  registry reg;
  REQUIRE(reg.add(workflow("provision", 1).step(1, gate.step("create")).serialize_by("/name")));
  REQUIRE(reg.add(workflow("deprovision", 1).step(1, gate.step("delete")).serialize_by("/name")));
  REQUIRE(reg.add(workflow("plain", 1).step(1, ok("only"))));
  harness h{std::move(reg)};
  auto a1 = h.start("provision", keyed_input("a", "a1"));
  auto a2 = h.start("deprovision", keyed_input("a", "a2"));
  auto a3 = h.start("provision", keyed_input("a", "a3"));
  auto b1 = h.start("provision", keyed_input("b", "b1"));
  REQUIRE(gate.await_started(2));
  REQUIRE(h.await(a3, event_type::operation_queued));
  CHECK(blocked_by(h, a2) == a1);
  CHECK(blocked_by(h, a3) == a2); // behind the one right ahead of it
  CHECK(h.eng.get(a2)->state == op_state::pending);
  CHECK(h.eng.get(a2)->key == "a");
  // A workflow without a key or limit is not held by any of this.
  CHECK(h.finish(h.start("plain")).state == op_state::succeeded);
  gate.let_through(2); // a1 and b1
  CHECK(h.finish(a1).state == op_state::succeeded);
  CHECK(h.finish(b1).state == op_state::succeeded);
  REQUIRE(gate.await_started(3));
  CHECK(blocked_by(h, a3) == a2);
  gate.let_through(2);
  CHECK(h.finish(a2).state == op_state::succeeded);
  CHECK(h.finish(a3).state == op_state::succeeded);
  auto order = gate.order();
  REQUIRE(order.size() == 4);
  CHECK(order[2] == "a2");
  CHECK(order[3] == "a3");
  // Each queued operation said what it waited for.
  bool named = false;
  for (auto& e : h.seen)
    if (e.operation_id == a2 && e.type == event_type::operation_queued)
      named = e.extra.at("blocked_by") == a1.c_str();
  CHECK(named);
  CHECK(h.count(b1, event_type::operation_queued) == 0);
}

TEST_CASE("a limit runs at most N of a workflow at once, the rest in FIFO order",
          "[actors][admission]") {
  turnstile gate;
  registry reg;
  REQUIRE(reg.add(workflow("w", 1).step(1, gate.step("s")).limit(5)));
  engine_config ec;
  ec.limits["w"] = 2; // the engine's setting overrides the workflow's
  harness h{std::move(reg), nullptr, ec};
  std::vector<std::string> ids;
  for (int i = 0; i < 6; ++i)
    ids.push_back(h.start("w", keyed_input("n" + std::to_string(i), "t" + std::to_string(i))));
  REQUIRE(gate.await_started(2));
  REQUIRE(counts_are(h, "w", 4, 2));
  CHECK(blocked_by(h, ids[5]) == "limit:w");
  SECTION("FIFO") {
    for (int done = 0; done < 6; ++done) {
      gate.let_through(1);
      REQUIRE(gate.await_started(std::min<size_t>(6, static_cast<size_t>(done) + 3)));
    }
    for (auto& id : ids)
      CHECK(h.finish(id).state == op_state::succeeded);
    // t0 and t1 are admitted together and start in either order; each
    // later one alone, in creation order.
    auto order = gate.order();
    REQUIRE(order.size() == 6);
    std::sort(order.begin(), order.begin() + 2);
    CHECK(order == std::vector<std::string>{"t0", "t1", "t2", "t3", "t4", "t5"});
    CHECK(counts_are(h, "w", 0, 0));
  }
  SECTION("canceling a queued operation takes it out of the queue") {
    REQUIRE(h.eng.cancel(ids[2]));
    CHECK(h.finish(ids[2]).state == op_state::canceled);
    REQUIRE(counts_are(h, "w", 3, 2));
    gate.let_through(6);
    for (size_t i = 0; i < ids.size(); ++i)
      if (i != 2)
        CHECK(h.finish(ids[i]).state == op_state::succeeded);
    auto order = gate.order();
    CHECK(std::find(order.begin(), order.end(), "t2") == order.end());
  }
}

TEST_CASE("the queue survives a restart", "[actors][admission]") {
  auto st = std::make_shared<memory_store>();
  std::string first;
  std::string second;
  std::vector<async_call> kept; // never completed: the process stops first
  {
    registry reg;
    auto hold = make_async_step("s", [&](async_call c) { kept.push_back(std::move(c)); });
    REQUIRE(reg.add(workflow("w", 1).step(1, hold).serialize_by("/name")));
    harness h{std::move(reg), st};
    first = h.start("w", keyed_input("a", "first"));
    second = h.start("w", keyed_input("a", "second"));
    REQUIRE(h.await(first, event_type::step_started));
    REQUIRE(h.await(second, event_type::operation_queued));
  }
  turnstile gate;
  registry reg;
  REQUIRE(reg.add(workflow("w", 1).step(1, gate.step("s")).serialize_by("/name")));
  harness h{std::move(reg), st};
  // The first runs again (at least once); the second still waits for it.
  REQUIRE(gate.await_started(1));
  CHECK(gate.order() == std::vector<std::string>{"first"});
  CHECK(h.eng.get(second)->state == op_state::pending);
  CHECK(blocked_by(h, second) == first);
  gate.let_through(2);
  CHECK(h.finish(first).state == op_state::succeeded);
  CHECK(h.finish(second).state == op_state::succeeded);
  CHECK(gate.order() == std::vector<std::string>{"first", "second"});
}

TEST_CASE("an input without the key is refused at start", "[actors][admission]") {
  registry reg;
  REQUIRE(reg.add(workflow("w", 1).step(1, ok("s")).serialize_by("/name")));
  harness h{std::move(reg)};
  start_request rq;
  rq.workflow = "w";
  rq.input = {{"other", 1}};
  auto res = h.eng.start(rq);
  REQUIRE_FALSE(res);
  CHECK(code_of(res.error()) == errc::invalid_argument);
  CHECK(message_of(res.error()).find("'/name'") != std::string::npos);
  rq.input = {{"name", 42}}; // any JSON value makes a key
  REQUIRE(h.eng.start(rq));
}
