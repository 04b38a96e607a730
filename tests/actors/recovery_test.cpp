// Restarts, store outages and requests that race an operation's end.
#include <atomic>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;
using test::one;

TEST_CASE("an empty engine handle answers with an error", "[actors]") {
  engine none;
  auto res = none.start({"w", std::nullopt, {}, {}, std::nullopt});
  REQUIRE(!res);
  CHECK(code_of(res.error()) == static_cast<uint8_t>(errc::invalid_argument));
  CHECK(!none.get("op-1"));
}

TEST_CASE("a restarted engine resumes waiting operations from the store", "[actors]") {
  std::atomic<int> runs{0};
  auto twice = make_step("twice", [&](step_context& ctx) {
    ++runs;
    return ctx.attempt() == 1 ? retry_after(30s, "later") : done();
  });
  auto wf = [&] { return one(workflow("w", 1).step(1, twice).step(2, ok("b"))); };
  auto st = std::make_shared<memory_store>();
  std::string id;
  {
    harness h{wf(), st};
    id = h.start("w");
    REQUIRE(h.await(id, event_type::step_retry_scheduled));
  }
  harness h{wf(), st};
  h.clk->advance(30s);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.steps[0].attempts == 2);
  CHECK(runs == 2);
}

TEST_CASE("a store outage delays checkpoints but fails and loses nothing", "[actors]") {
  std::atomic<int> runs{0};
  std::atomic<bool> gate{false};
  auto gated = make_step("a", [&](step_context&) {
    while (!gate)
      std::this_thread::yield();
    ++runs;
    return done();
  });
  harness h{one(workflow("w", 1).step(1, gated).step(2, ok("b", &runs)))};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_started, "a"));
  h.store->fail_commits(true);
  gate = true;
  // The first step's result cannot be written: the writer keeps retrying
  // and the operation neither fails nor moves on.
  auto& m = h.eng.stats();
  auto waited = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (m.commit_errors.load() < 2 && std::chrono::steady_clock::now() < waited)
    std::this_thread::yield();
  CHECK(m.commit_errors.load() >= 2);
  CHECK(!h.eng.ready());
  auto during = h.store->load(id);
  REQUIRE(during);
  CHECK((*during)->state == op_state::in_progress);
  h.store->fail_commits(false);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(runs == 2);
  CHECK(h.eng.ready());
}

TEST_CASE("get and cancel never fail while operations finish", "[actors]") {
  // An operation's actor quits right after its terminal write: requests
  // that reach it just then are answered from the store.
  auto later = make_step("later", [](step_context& ctx) {
    return ctx.attempt() == 1 ? retry_after(1s, "later") : done();
  });
  engine_config ec;
  ec.passivate_after = std::chrono::hours(1);
  harness h{one(workflow("w", 1).step(1, later)), nullptr, ec};
  std::vector<std::string> ids;
  for (int i = 0; i < 300; ++i)
    ids.push_back(h.start("w"));
  for (auto& id : ids)
    REQUIRE(h.await(id, event_type::step_retry_scheduled));
  // Every operation finishes while the requests below reach it.
  h.clk->advance(1s);
  size_t errors = 0;
  for (int round = 0; round < 20; ++round)
    for (auto& id : ids) {
      if (!h.eng.get(id))
        ++errors;
      auto c = h.eng.cancel(id);
      if (!c && code_of(c.error()) != static_cast<uint8_t>(errc::invalid_state))
        ++errors;
    }
  CHECK(errors == 0);
  for (auto& id : ids) {
    auto op = h.finish(id);
    CHECK((op.state == op_state::succeeded || op.state == op_state::canceled));
    CHECK(h.count(id, event_type::operation_succeeded)
            + h.count(id, event_type::operation_canceled)
          == 1);
  }
}
