// Child operations: a step starts them, a wait step waits for all, any or
// N of them holding no actor, a failed child fails that step unless it
// accepts failures, a parent's cancel cancels them (or abandons them), and
// a step run again after a crash finds the children it started.
#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;

namespace {

/// A child that waits for signal "go", then fails when its payload says so.
workflow waiting_child() {
  return std::move(workflow("child", 1)
                     .step(1, await_signal("wait", "go"))
                     .step(2, make_step("end", [](step_context& ctx) {
                             auto& go = ctx.data().at("go").as_object();
                             return go.contains("fail") ? fail("told to fail") : done();
                           })));
}

/// A step that starts `n` children of workflow "child", counting its runs.
step_def fan_out(std::string name, size_t n, std::atomic<int>* runs = nullptr) {
  return make_step(std::move(name), [n, runs](step_context& ctx) {
    if (runs)
      ++*runs;
    for (size_t i = 0; i < n; ++i)
      ctx.start_child("child", {{"i", static_cast<int64_t>(i)}});
    return done();
  });
}

registry family(step_def join, size_t n = 3) {
  registry reg;
  REQUIRE(reg.add(waiting_child()));
  REQUIRE(reg.add(std::move(workflow("parent", 1)
                              .step(1, fan_out("fan", n))
                              .step(2, std::move(join))
                              .step(3, ok("after")))));
  return reg;
}

/// Returns the children of `parent` by slot key, as the store has them.
std::map<std::string, operation> children_of(harness& h, const std::string& parent) {
  list_filter f;
  f.parent = parent;
  f.limit = 500;
  auto page = h.eng.list(f);
  REQUIRE(page);
  std::map<std::string, operation> out;
  for (auto& op : page->items) {
    auto slot = parse_child_key(op.idempotency_key);
    REQUIRE(slot);
    CHECK(slot->parent == parent);
    out.emplace(slot->step + "/" + slot->key, op);
  }
  return out;
}

/// Waits until `parent` has `n` children and returns them.
std::map<std::string, operation> await_children_of(harness& h, const std::string& parent,
                                                   size_t n) {
  std::map<std::string, operation> out;
  CHECK(h.eventually([&] {
    out = children_of(h, parent);
    return out.size() == n;
  }));
  return out;
}

void go(harness& h, const operation& child, bool fails = false) {
  boost::json::object payload;
  if (fails)
    payload["fail"] = true;
  REQUIRE(h.eng.signal(child.id, {"go", payload, {}}));
}

/// Waits until the parent has slept (no actor) for a while: its wait holds
/// no actor.
bool parent_sleeps(harness& h, int64_t sleepers) {
  return h.eventually([&] { return h.eng.stats().operations_sleeping.load() >= sleepers; });
}

const boost::json::object& results_of(const operation& op, const std::string& step) {
  return op.data.at("children_results").at(step).as_object();
}

} // namespace

TEST_CASE("a step starts children; the wait for all of them ends once every one has ended",
          "[actors][children]") {
  harness h{family(await_children("join", "fan"))};
  auto id = h.start("parent");
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  auto kids = await_children_of(h, id, 3);
  for (auto& [slot, c] : kids) {
    CHECK(c.parent_id == id);
    CHECK(c.workflow == "child");
  }
  // Three children and their parent wait, none holding an actor.
  CHECK(parent_sleeps(h, 4));
  auto parent = h.eng.get(id);
  REQUIRE(parent);
  auto& ids = parent->data.at("children").at("fan").as_object();
  CHECK(ids.size() == 3);
  CHECK(ids.at("0").as_string() == kids.at("fan/0").id);
  go(h, kids.at("fan/0"));
  go(h, kids.at("fan/1"));
  REQUIRE(h.await(kids.at("fan/1").id, event_type::operation_succeeded));
  REQUIRE(h.await(kids.at("fan/0").id, event_type::operation_succeeded));
  auto still = h.eng.get(id);
  REQUIRE(still);
  CHECK(still->state == op_state::waiting);
  go(h, kids.at("fan/2"));
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  auto& res = results_of(op, "fan");
  REQUIRE(res.size() == 3);
  for (auto& kv : res) {
    auto& r = kv.value().as_object();
    CHECK(r.at("state").as_string() == "succeeded");
    CHECK(r.at("data").as_object().contains("go"));
    CHECK(r.at("error").as_string() == "");
  }
  CHECK(res.at("2").at("id").as_string() == kids.at("fan/2").id);
}

TEST_CASE("a wait for any child ends with the first one", "[actors][children]") {
  harness h{family(await_children("join", "fan").needing_any())};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 3);
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  go(h, kids.at("fan/1"));
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  auto& res = results_of(op, "fan");
  CHECK(res.at("1").at("state").as_string() == "succeeded");
  CHECK(res.at("0").at("state").as_string() == "waiting");
  // The others run on.
  auto other = h.eng.get(kids.at("fan/0").id);
  REQUIRE(other);
  CHECK(other->state == op_state::waiting);
}

TEST_CASE("a wait for N of M children ends with the Nth", "[actors][children]") {
  harness h{family(await_children("join", "fan").needing(2), 4)};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 4);
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  go(h, kids.at("fan/3"));
  REQUIRE(h.await(kids.at("fan/3").id, event_type::operation_succeeded));
  auto one_in = h.eng.get(id);
  REQUIRE(one_in);
  CHECK(one_in->state == op_state::waiting);
  go(h, kids.at("fan/0"));
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(results_of(op, "fan").size() == 4);
}

TEST_CASE("a wait for more children than the step started fails at once", "[actors][children]") {
  harness h{family(await_children("join", "fan").needing(5))};
  auto id = h.start("parent");
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("waits for 5 children but step 'fan' has 3") != std::string::npos);
}

TEST_CASE("a failed child fails the waiting step", "[actors][children]") {
  harness h{family(await_children("join", "fan"))};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 3);
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  go(h, kids.at("fan/1"), true);
  // It fails as soon as the failure is seen, not once all have ended.
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.steps[1].state == step_state::failed);
  CHECK(op.error.find("child '1' of step 'fan'") != std::string::npos);
  CHECK(op.error.find("told to fail") != std::string::npos);
  CHECK(results_of(op, "fan").at("1").at("state").as_string() == "failed");
}

TEST_CASE("a wait accepting failures counts a failed child as ended", "[actors][children]") {
  harness h{family(await_children("join", "fan").accepting_failures())};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 3);
  go(h, kids.at("fan/0"), true);
  go(h, kids.at("fan/1"));
  go(h, kids.at("fan/2"), true);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  auto& res = results_of(op, "fan");
  CHECK(res.at("0").at("state").as_string() == "failed");
  CHECK(res.at("0").at("error").as_string().find("told to fail") != std::string::npos);
  CHECK(res.at("1").at("state").as_string() == "succeeded");
}

TEST_CASE("a wait for every child of the operation takes the children of all its steps",
          "[actors][children]") {
  registry reg;
  REQUIRE(reg.add(waiting_child()));
  REQUIRE(reg.add(std::move(workflow("parent", 1)
                              .step(1, fan_out("a", 1))
                              .step(2, fan_out("b", 2))
                              .step(3, await_children("join")))));
  harness h{std::move(reg)};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 3);
  for (auto& kv : kids)
    go(h, kv.second);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(results_of(op, "a").size() == 1);
  CHECK(results_of(op, "b").size() == 2);
}

TEST_CASE("a children wait times out on the engine's clock", "[actors][children]") {
  harness h{family(await_children("join", "fan").with_wait_timeout(1min))};
  auto id = h.start("parent");
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  await_children_of(h, id, 3);
  h.clk->advance(1min);
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.steps[1].last_error.find("no end of enough children within 60000 ms")
        != std::string::npos);
}

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
