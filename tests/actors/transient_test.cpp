// Transient values (overrides): never stored, rebuilt by the steps that
// produce them whenever an operation goes on in a new actor.
#include <atomic>
#include <functional>

#include <catch2/catch.hpp>

#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;
using test::one;
using test::retries_once;

namespace {

constexpr const char* token = "tok-5ecret";

/// Adds a public and a secret override; counts its runs. From run
/// `fail_from` on (0: never) it cannot reach its token service.
step_def tokens(std::atomic<int>& runs, int fail_from = 0) {
  return make_step("tokens",
                   [&runs, fail_from](step_context& ctx) {
                     auto n = ++runs;
                     if (n == fail_from)
                       return retry_after(5s, "token service unreachable");
                     ctx.add_override("core", "domain", "example.org");
                     ctx.add_override("lms", "token", token, true);
                     return done();
                   })
    .producing_transient();
}

/// Records what overrides it sees, without their values.
step_def use() {
  return make_step("use", [](step_context& ctx) {
    boost::json::array seen;
    for (auto& o : ctx.overrides())
      seen.emplace_back(o.component + "/" + o.key + (o.secret ? " (secret)" : ""));
    ctx.data()["seen"] = std::move(seen);
    auto all = ctx.overrides();
    ctx.data()["domain"] = all.empty() ? "" : all[0].value;
    return done();
  });
}

const boost::json::array expected_seen{"core/domain", "lms/token (secret)"};

/// Starts `w` on `st` and stops its engine while the gate waits; returns
/// the operation's id.
std::string stopped_at_gate(const std::function<registry()>& wf,
                            const std::shared_ptr<memory_store>& st) {
  harness h{wf(), st};
  auto id = h.start("w");
  REQUIRE(h.await(id, event_type::step_retry_scheduled, "gate"));
  return id;
}

} // namespace

TEST_CASE("overrides sort by component and key, replace, and stay typed", "[actors][transient]") {
  step_context ctx{"op", "s", 1, std::make_shared<boost::json::object>(), {}, {}, nullptr};
  ctx.add_override("lms", "token", "a", true);
  ctx.add_override("core", "z", "1");
  ctx.add_override("core", "a.b", "2");
  ctx.add_override("lms", "token", "b", true);
  ctx.set_transient("plain", 7);
  auto all = ctx.overrides();
  REQUIRE(all.size() == 3);
  CHECK(all[0].component == "core");
  CHECK(all[0].key == "a.b");
  CHECK(all[1].key == "z");
  CHECK(all[2].value == "b");
  CHECK(all[2].secret);
  CHECK_FALSE(all[0].secret);
}

TEST_CASE("producing steps run again, quietly, before the next step after a restart",
          "[actors][transient]") {
  // An inline one too: its result is there at once, not in a worker's message.
  auto inline_body = GENERATE(false, true);
  INFO("inline: " << inline_body);
  std::atomic<int> runs{0};
  auto wf = [&] {
    return one(workflow("w", 1)
                 .step(1, tokens(runs).running_inline(inline_body))
                 .step(2, retries_once("gate"))
                 .step(3, use()));
  };
  auto st = std::make_shared<memory_store>();
  auto id = stopped_at_gate(wf, st);
  CHECK(runs == 1);
  harness h{wf(), st};
  h.clk->advance(30s);
  auto op = h.finish(id);
  REQUIRE(op.state == op_state::succeeded);
  CHECK(runs == 2);
  CHECK(op.data.at("seen") == expected_seen);
  CHECK(op.data.at("domain") == "example.org");
  // The run again is no attempt of its own: one record, one start.
  CHECK(op.steps[0].attempts == 1);
  size_t starts = 0;
  auto evs = st->events_after(0, 1000);
  REQUIRE(evs);
  for (auto& e : *evs)
    starts += e.operation_id == id && e.type == event_type::step_started && e.step == "tokens";
  CHECK(starts == 1);
  // The secret went nowhere stored.
  CHECK(test::stored_text(*st, id).find(token) == std::string::npos);
}

TEST_CASE("a producing step that fails when run again decides the waiting step's attempt",
          "[actors][transient]") {
  std::atomic<int> runs{0};
  // Run 2 (the one after the restart) cannot reach the token service.
  auto wf = [&] {
    return one(
      workflow("w", 1).step(1, tokens(runs, 2)).step(2, retries_once("gate")).step(3, use()));
  };
  auto st = std::make_shared<memory_store>();
  auto id = stopped_at_gate(wf, st);
  harness h{wf(), st};
  h.clk->advance(30s);
  REQUIRE(h.await([&](const event& e) {
    return e.operation_id == id && e.type == event_type::step_retry_scheduled && e.attempt == 2;
  }));
  auto mid = h.eng.get(id);
  REQUIRE(mid);
  CHECK(mid->steps[1].last_error
        == "step 'tokens' (run again for its transient values): token service unreachable");
  h.clk->advance(5s);
  auto op = h.finish(id);
  REQUIRE(op.state == op_state::succeeded);
  CHECK(runs == 3);
  CHECK(op.steps[0].attempts == 1);
  CHECK(op.steps[1].attempts == 3);
  CHECK(op.data.at("seen") == expected_seen);
}

TEST_CASE("rebuildable transient values do not keep an actor; others do", "[actors][transient]") {
  std::atomic<int> runs{0};
  auto pins = make_step("pins", [](step_context& ctx) {
    ctx.set_transient("session", "s-1");
    return done();
  });
  registry reg;
  REQUIRE(reg.add(
    workflow("rebuilt", 1).step(1, tokens(runs)).step(2, make_sleep("nap", 1h)).step(3, use())));
  REQUIRE(
    reg.add(workflow("pinned", 1).step(1, pins).step(2, make_sleep("nap", 1h)).step(3, use())));
  harness h{std::move(reg)};
  auto& m = h.eng.stats();
  // The pinned one keeps its actor and arms its own timer. (A request
  // reaches its actor after the write's acknowledgement: once answered,
  // the actor has decided.)
  auto pinned = h.start("pinned");
  REQUIRE(h.await(pinned, event_type::operation_waiting));
  REQUIRE(h.eng.get(pinned));
  CHECK(m.timers_pending.load() == 1);
  CHECK(m.operations_sleeping.load() == 0);
  // The other passivates: its overrides are built again when it wakes.
  auto rebuilt = h.start("rebuilt");
  REQUIRE(h.await(rebuilt, event_type::operation_waiting));
  auto until = std::chrono::steady_clock::now() + 10s;
  while (m.operations_sleeping.load() == 0 && std::chrono::steady_clock::now() < until)
    h.pump(10ms);
  CHECK(m.operations_sleeping.load() == 1);
  CHECK(m.timers_pending.load() == 1);
  h.clk->advance(1h);
  auto a = h.finish(rebuilt);
  CHECK(a.data.at("seen") == expected_seen);
  CHECK(runs == 2);
  auto b = h.finish(pinned);
  CHECK(b.state == op_state::succeeded);
}

TEST_CASE("secret overrides are scrubbed from errors and emitted events", "[actors][transient]") {
  std::atomic<int> runs{0};
  auto leaky = make_step("leaky", [](step_context& ctx) {
    ctx.emit(event_type::infrastructure_task_completed, {{"echo", std::string{"got "} + token}});
    return fail(std::string{"driver said: bad token "} + token);
  });
  harness h{one(workflow("w", 1).step(1, tokens(runs)).step(2, leaky))};
  auto id = h.start("w");
  auto op = h.finish(id);
  REQUIRE(op.state == op_state::failed);
  CHECK(op.steps[1].last_error == "driver said: bad token ***");
  CHECK(op.error == "step 'leaky': driver said: bad token ***");
  bool echoed = false;
  for (auto& e : h.seen)
    if (e.type == event_type::infrastructure_task_completed) {
      echoed = true;
      CHECK(e.extra.at("echo") == "got ***");
    }
  CHECK(echoed);
  CHECK(test::stored_text(*h.store, id).find(token) == std::string::npos);
}

TEST_CASE("producing steps run again only before a step that uses their values",
          "[actors][transient]") {
  std::atomic<int> runs{0};
  // Two wake-ups: the first is followed by a step that does not use the
  // values, the second by one that does.
  harness h{one(workflow("w", 1)
                  .step(1, tokens(runs))
                  .step(2, make_sleep("nap1", 1h))
                  .step(3, ok("between"))
                  .step(4, make_sleep("nap2", 1h))
                  .step(5, use().using_transient()))};
  auto id = h.start("w");
  // Each nap passivates the actor (its values are gone) before the time
  // moves: the event can be seen before the actor has acted on its commit.
  auto asleep = [&] {
    return h.eventually([&] { return h.eng.stats().operations_sleeping.load() == 1; });
  };
  REQUIRE(h.await(id, event_type::operation_waiting, "nap1"));
  REQUIRE(asleep());
  h.clk->advance(1h);
  REQUIRE(h.await(id, event_type::operation_waiting, "nap2"));
  REQUIRE(asleep());
  CHECK(runs == 1);
  h.clk->advance(1h);
  auto op = h.finish(id);
  REQUIRE(op.state == op_state::succeeded);
  CHECK(runs == 2);
  CHECK(op.data.at("seen") == expected_seen);
}
