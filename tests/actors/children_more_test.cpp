// Child operations with the rest of the engine: a parent's cancel (or its
// abandon policy), workflow limits, bad requests, a crash before the
// parent's checkpoint, a restart while the parent waits.
#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/children_fixtures.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;
using namespace stepwise::test;

TEST_CASE("canceling a parent cancels its unfinished children", "[actors][children]") {
  harness h{family(await_children("join", "fan"))};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 3);
  go(h, kids.at("fan/0"));
  REQUIRE(h.await(kids.at("fan/0").id, event_type::operation_succeeded));
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  REQUIRE(h.eng.cancel(id));
  CHECK(h.finish(id).state == op_state::canceled);
  CHECK(h.finish(kids.at("fan/1").id).state == op_state::canceled);
  CHECK(h.finish(kids.at("fan/2").id).state == op_state::canceled);
  CHECK(h.finish(kids.at("fan/0").id).state == op_state::succeeded);
}

TEST_CASE("the children of a step that abandons them run on after the parent's cancel",
          "[actors][children]") {
  registry reg;
  REQUIRE(reg.add(waiting_child()));
  REQUIRE(reg.add(std::move(workflow("parent", 1)
                              .step(1, fan_out("kept", 2).abandoning_children())
                              .step(2, fan_out("dropped", 2))
                              .step(3, await_children("join")))));
  harness h{std::move(reg)};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 4);
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  REQUIRE(h.eng.cancel(id));
  // The cancels of all four would have gone out together.
  CHECK(h.finish(kids.at("dropped/0").id).state == op_state::canceled);
  CHECK(h.finish(kids.at("dropped/1").id).state == op_state::canceled);
  go(h, kids.at("kept/0"));
  go(h, kids.at("kept/1"));
  CHECK(h.finish(kids.at("kept/0").id).state == op_state::succeeded);
  CHECK(h.finish(kids.at("kept/1").id).state == op_state::succeeded);
}

TEST_CASE("children are ordinary operations: their workflow's limit applies",
          "[actors][children]") {
  registry reg;
  REQUIRE(reg.add(std::move(waiting_child().limit(2))));
  REQUIRE(reg.add(std::move(
    workflow("parent", 1).step(1, fan_out("fan", 5)).step(2, await_children("join", "fan")))));
  harness h{std::move(reg)};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 5);
  // Two run (they wait for their signal); three queue for a slot.
  auto queued = [&] {
    size_t n = 0;
    for (auto& kv : children_of(h, id))
      n += kv.second.admission == admission::queued ? 1 : 0;
    return n;
  };
  CHECK(h.eventually([&] { return queued() == 3; }));
  // Signal whichever run now; the queued ones follow as slots free up.
  std::set<std::string> signaled;
  size_t most_running = 0;
  CHECK(h.eventually([&] {
    size_t running = 0;
    for (auto& kv : children_of(h, id)) {
      auto& c = kv.second;
      if (!is_terminal(c.state) && c.admission == admission::admitted)
        ++running;
      if (c.state == op_state::waiting && signaled.insert(c.id).second)
        go(h, c);
    }
    most_running = std::max(most_running, running);
    auto p = h.eng.get(id);
    return p && p->state == op_state::succeeded;
  }));
  CHECK(most_running == 2);
  CHECK(signaled.size() == 5);
  CHECK(h.finish(id).state == op_state::succeeded);
}

TEST_CASE("a child slot asked for twice in one attempt fails the step", "[actors][children]") {
  registry reg;
  REQUIRE(reg.add(waiting_child()));
  REQUIRE(reg.add(workflow("parent", 1).step(1, make_step("fan", [](step_context& ctx) {
                                               ctx.start_child("child", {}, "x");
                                               ctx.start_child("child", {}, "x");
                                               return done();
                                             }))));
  harness h{std::move(reg)};
  auto id = h.start("parent");
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("asked twice for child 'x'") != std::string::npos);
  CHECK(children_of(h, id).empty());
}

TEST_CASE("a child of an unknown workflow fails the step that asked for it", "[actors][children]") {
  registry reg;
  REQUIRE(reg.add(workflow("parent", 1).step(1, make_step("fan", [](step_context& ctx) {
                                               ctx.start_child("nowhere", {});
                                               return done();
                                             }))));
  harness h{std::move(reg)};
  auto op = h.finish(h.start("parent"));
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("unknown workflow 'nowhere'") != std::string::npos);
}

namespace {

/// A memory store whose commits fail while `trap` says so of an item in
/// the batch: the process "crashes" before that write.
struct trap_store : memory_store {
  std::function<bool(const checkpoint&)> trap;
  std::atomic<int> sprung{0};

  caf::expected<commit_result> commit(const std::vector<checkpoint>& batch) override {
    if (trap)
      for (auto& cp : batch)
        if (trap(cp)) {
          ++sprung;
          return make_error(errc::store_failure, "trapped");
        }
    return memory_store::commit(batch);
  }
};

} // namespace

TEST_CASE("a step run again after a crash gets the children it started, not new ones",
          "[actors][children]") {
  std::atomic<int> runs{0};
  auto make = [&] {
    registry reg;
    REQUIRE(reg.add(std::move(workflow("child", 1).step(1, ok("work")))));
    REQUIRE(reg.add(std::move(workflow("parent", 1)
                                .step(1, fan_out("fan", 5, &runs))
                                .step(2, await_children("join", "fan")))));
    return reg;
  };
  auto st = std::make_shared<trap_store>();
  // The parent's write of the step's result (with its children's ids)
  // never happens: the children are written, the parent still runs "fan".
  st->trap = [](const checkpoint& cp) {
    return cp.what == checkpoint::kind::update && cp.op->workflow == "parent"
           && cp.op->data.contains("children");
  };
  std::string id;
  std::map<std::string, std::string> first;
  {
    harness h{make(), st};
    id = h.start("parent");
    CHECK(h.eventually([&] { return st->sprung.load() > 0; }));
    auto stored = st->load(id);
    REQUIRE(stored);
    CHECK((*stored)->steps[0].state == step_state::running);
    for (auto& [slot, c] : await_children_of(h, id, 5))
      first[slot] = c.id;
  }
  st->trap = nullptr;
  harness h{make(), st};
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(runs == 2);
  auto again = children_of(h, id);
  REQUIRE(again.size() == 5);
  auto& ids = op.data.at("children").at("fan").as_object();
  for (auto& [slot, c] : again) {
    CHECK(first.at(slot) == c.id);
    CHECK(ids.at(slot.substr(4)).as_string() == c.id);
    CHECK(c.state == op_state::succeeded);
  }
}

TEST_CASE("a parent waiting for its children across a restart is woken by their ends",
          "[actors][children]") {
  auto st = std::make_shared<memory_store>();
  auto clk = std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
  std::string id;
  std::map<std::string, operation> kids;
  {
    harness h{family(await_children("join", "fan").with_wait_timeout(1h)), st, {}, clk};
    id = h.start("parent");
    kids = await_children_of(h, id, 3);
    REQUIRE(h.await(id, event_type::operation_waiting, "join"));
    go(h, kids.at("fan/0"));
    REQUIRE(h.await(kids.at("fan/0").id, event_type::operation_succeeded));
  }
  harness h{family(await_children("join", "fan").with_wait_timeout(1h)), st, {}, clk};
  go(h, kids.at("fan/1"));
  go(h, kids.at("fan/2"));
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(results_of(op, "fan").size() == 3);
}

TEST_CASE("a workflow whose children wait names a later step is invalid", "[actors][children]") {
  registry reg;
  auto added = reg.add(std::move(
    workflow("parent", 1).step(1, await_children("join", "fan")).step(2, fan_out("fan", 1))));
  REQUIRE_FALSE(added);
  CHECK(to_string(added.error()).find("not a step before it") != std::string::npos);
}
