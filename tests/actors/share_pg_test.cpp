// Work spreads between processes on one store (engine/share.hpp): a
// process that joins takes a share of the sleeping operations, one that
// leaves hands its own over as it goes, and every operation that moved
// goes on where it stopped, once. The lease tick is a minute apart here:
// only the store's notifications move things this fast.
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "tests/actors/pg_engines.hpp"
#include "tests/eventually.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

engine launch_slow_ticks(caf::actor_system& sys, store_ptr st) {
  engine_config ec;
  ec.lease_ttl = std::chrono::duration_cast<duration>(180s);
  auto eng = engine::launch(sys, ec, go_then_done(), std::move(st));
  if (!eng)
    FAIL("launch failed: " << message_of(eng.error()));
  return std::move(*eng);
}

/// How many operations `of` drives, as the store says.
int64_t held(engine& asker, const std::string& of) {
  auto view = asker.cluster();
  if (!view)
    return -1;
  for (auto& s : view->servers)
    if (s.owner == of)
      return s.operations;
  return 0;
}

} // namespace

TEST_CASE("share: a process that joins takes a share, one that leaves hands its operations over, "
          "and each goes on once",
          "[actors][pg][lease]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  auto a = launch_slow_ticks(sys, pg.schema().open());
  constexpr int n = 100;
  auto ids = start_many(a, "w", n);
  REQUIRE(eventually([&] { return a.stats().operations_sleeping.load() == n; }, 30s));

  auto b = launch_slow_ticks(sys, pg.schema().open());
  REQUIRE(eventually([&] { return held(a, b.owner()) >= n / 2 - 5; }, 20s));
  CHECK(held(a, a.owner()) + held(a, b.owner()) == n);
  CHECK(a.stats().operations_released.load() >= n / 2 - 5);
  // Counted once the claim returned, a moment after its rows are B's.
  CHECK(eventually([&] { return b.stats().operations_claimed.load() >= n / 2 - 5; }, 10s));
  // What B claimed, it drives: a sleeper there, not only a row.
  REQUIRE(eventually(
    [&] {
      return b.stats().operations_sleeping.load() + b.stats().operations_live.load()
             == held(a, b.owner());
    },
    20s));

  // Signals through A reach the operations wherever they are now.
  auto signal_and_end = [&](size_t from, size_t to) {
    for (auto i = from; i < to; ++i)
      REQUIRE(a.signal(ids[i], {"go", boost::json::object{{"i", static_cast<int64_t>(i)}}, ""}));
    for (auto i = from; i < to; ++i) {
      INFO(ids[i]);
      REQUIRE(eventually(
        [&] {
          auto op = a.get(ids[i]);
          return op && op->state == op_state::succeeded;
        },
        20s));
    }
  };
  signal_and_end(0, ids.size() / 2);

  // B leaves: A takes what B still drives as B goes, long before a tick.
  b.shutdown();
  REQUIRE(eventually([&] { return held(a, a.owner()) == n - n / 2; }, 20s));
  CHECK(a.cluster()->servers.size() == 1);
  signal_and_end(ids.size() / 2, ids.size());
  // Each step's success recorded once, whichever process ran it.
  auto st = pg.schema().open();
  std::map<std::string, int> after;
  for (auto& e : all_events(*st))
    if (e.type == event_type::step_succeeded && e.step == "after")
      ++after[e.operation_id];
  CHECK(after.size() == ids.size());
  for (auto& [id, count] : after) {
    INFO(id);
    CHECK(count == 1);
  }
  a.shutdown();
}
