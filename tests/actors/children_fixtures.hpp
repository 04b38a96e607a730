#pragma once

// What the children actor tests share: a child that waits for a signal, a
// fan-out step, a parent workflow around a join step, and readers of the
// children.
#include <atomic>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/harness.hpp"

namespace stepwise::test {

using namespace std::chrono_literals;

/// A child that waits for signal "go", then fails when its payload says so.
inline workflow waiting_child() {
  return std::move(workflow("child", 1)
                     .step(1, await_signal("wait", "go"))
                     .step(2, make_step("end", [](step_context& ctx) {
                             auto& go = ctx.data().at("go").as_object();
                             return go.contains("fail") ? fail("told to fail") : done();
                           })));
}

/// A step that starts `n` children of workflow "child", counting its runs.
inline step_def fan_out(std::string name, size_t n, std::atomic<int>* runs = nullptr) {
  return make_step(std::move(name), [n, runs](step_context& ctx) {
    if (runs)
      ++*runs;
    for (size_t i = 0; i < n; ++i)
      ctx.start_child("child", {{"i", static_cast<int64_t>(i)}});
    return done();
  });
}

inline registry family(step_def join, size_t n = 3) {
  registry reg;
  REQUIRE(reg.add(waiting_child()));
  REQUIRE(reg.add(std::move(workflow("parent", 1)
                              .step(1, fan_out("fan", n))
                              .step(2, std::move(join))
                              .step(3, ok("after")))));
  return reg;
}

/// Returns the children of `parent` by slot key, as the store has them.
inline std::map<std::string, operation> children_of(harness& h, const std::string& parent) {
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
inline std::map<std::string, operation> await_children_of(harness& h, const std::string& parent,
                                                          size_t n) {
  std::map<std::string, operation> out;
  CHECK(h.eventually([&] {
    out = children_of(h, parent);
    return out.size() == n;
  }));
  return out;
}

inline void go(harness& h, const operation& child, bool fails = false) {
  boost::json::object payload;
  if (fails)
    payload["fail"] = true;
  REQUIRE(h.eng.signal(child.id, {"go", payload, {}}));
}

/// Waits until the parent has slept (no actor) for a while: its wait holds
/// no actor.
inline bool parent_sleeps(harness& h, int64_t sleepers) {
  return h.eventually([&] { return h.eng.stats().operations_sleeping.load() >= sleepers; });
}

inline const boost::json::object& results_of(const operation& op, const std::string& step) {
  return op.data.at("children_results").at(step).as_object();
}

} // namespace stepwise::test
