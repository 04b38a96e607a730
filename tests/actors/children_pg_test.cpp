// A child that ends in another process wakes its parent at once: the
// commit that ends it notifies (stepwise_child_ended) and the parent's
// process counts it, instead of the parent reading its children every
// `children_poll` (two minutes here, as the lease tick). Prints how long
// each parent took to go on after its child ended, as a JSON line.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "tests/actors/children_fixtures.hpp"
#include "tests/actors/pg_engines.hpp"
#include "tests/eventually.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

registry parents_of_one() {
  registry reg;
  REQUIRE(reg.add(waiting_child()));
  REQUIRE(reg.add(std::move(workflow("parent", 1)
                              .step(1, fan_out("fan", 1))
                              .step(2, await_children("join", "fan"))
                              .step(3, make_step("after", [](step_context&) { return done(); })))));
  return reg;
}

engine launch_without_polls(caf::actor_system& sys, store_ptr st) {
  engine_config ec;
  ec.lease_ttl = std::chrono::duration_cast<duration>(360s);
  ec.children_poll = std::chrono::duration_cast<duration>(120s);
  auto eng = engine::launch(sys, ec, parents_of_one(), std::move(st));
  if (!eng)
    FAIL("launch failed: " << message_of(eng.error()));
  return std::move(*eng);
}

} // namespace

TEST_CASE("children: a child that ends in another process wakes its parent at once",
          "[actors][pg][lease][children]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  auto a = launch_without_polls(sys, pg.schema().open());
  constexpr int n = 40;
  auto parents = start_many(a, "parent", n);
  // Parents and children sleep. Those due last move first: B's share is
  // the children (no timeout), not the parents (due at their next look at
  // the children).
  REQUIRE(eventually([&] { return a.stats().operations_sleeping.load() == 2 * n; }, 30s));
  auto b = launch_without_polls(sys, pg.schema().open());
  std::map<std::string, std::string> child_of;
  std::map<std::string, bool> on_b;
  REQUIRE(eventually(
    [&] {
      list_filter f;
      f.workflow = "child";
      f.limit = 500;
      auto page = a.list(f);
      if (!page)
        return false;
      size_t moved = 0;
      for (auto& c : page->items) {
        child_of[c.parent_id] = c.id;
        on_b[c.id] = c.owner == b.owner();
        moved += on_b[c.id];
      }
      return moved >= n / 2;
    },
    20s));

  for (auto& [parent, child] : child_of)
    REQUIRE(a.signal(child, {"go", boost::json::object{}, ""}));
  for (auto& parent : parents) {
    INFO(parent);
    REQUIRE(eventually(
      [&] {
        auto op = a.get(parent);
        return op && op->state == op_state::succeeded;
      },
      30s));
  }

  // From the end of each child that B drove to its parent's join on A.
  auto st = pg.schema().open();
  std::map<std::string, time_point> ended, joined;
  for (auto& e : all_events(*st)) {
    if (e.type == event_type::operation_succeeded)
      ended[e.operation_id] = e.time;
    if (e.type == event_type::step_succeeded && e.step == "join")
      joined[e.operation_id] = e.time;
  }
  std::vector<double> ms;
  for (auto& [parent, child] : child_of) {
    REQUIRE(joined.count(parent));
    REQUIRE(ended.count(child));
    if (!on_b[child])
      continue;
    ms.push_back(std::chrono::duration<double, std::milli>(joined[parent] - ended[child]).count());
  }
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, size_t(q * ms.size()))]; };
  std::cout << R"({"test":"child_wakes_parent","parents":)" << ms.size() << R"(,"p50_ms":)"
            << at(0.5) << R"(,"p99_ms":)" << at(0.99) << R"(,"max_ms":)" << ms.back() << "}\n";
  a.shutdown();
  b.shutdown();
}
