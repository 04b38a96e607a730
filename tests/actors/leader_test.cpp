// Duties done once for every process on a shared store (retention passes,
// schedule fires): the process with the oldest live lease does them, and
// the next takes over when it leaves.
#include <chrono>
#include <cstdint>

#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "tests/eventually.hpp"
#include "tests/actors/pg_engines.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

registry one_step() {
  registry reg;
  REQUIRE(
    reg.add(workflow("quick", 1).step(1, make_step("one", [](step_context&) { return done(); }))));
  return reg;
}

// A short lease: claims (and so elections) every 100 ms. Retention keeps
// nothing that ended and looks every 100 ms.
engine launch(caf::actor_system& sys, store_ptr st) {
  engine_config ec;
  ec.lease_ttl = std::chrono::duration_cast<duration>(300ms);
  ec.retention = std::chrono::duration_cast<duration>(1ms);
  ec.retention_every = std::chrono::duration_cast<duration>(100ms);
  auto eng = engine::launch(sys, ec, one_step(), std::move(st));
  if (!eng)
    FAIL("launch failed: " << message_of(eng.error()));
  return std::move(*eng);
}

} // namespace

TEST_CASE("leader: the oldest lease leads, removes for all, and the next takes over",
          "[actors][pg][lease]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  auto& schema = pg.schema();
  auto a = launch(sys, schema.open());
  auto b = launch(sys, schema.open());
  CHECK(a.stats().leader.load() == 1);
  CHECK(b.stats().leader.load() == 0);
  // Started through the one that does not lead, one after another: the
  // leader's retention removes each once it ended. (Both looking, each
  // would go to whichever looked first: ten to A alone by chance is one
  // in a thousand.)
  auto removed = [](engine& e) { return e.stats().retention_operations_removed.load(); };
  for (uint64_t i = 1; i <= 10; ++i) {
    auto started = b.start({"quick", std::nullopt, {}, {}, std::nullopt});
    REQUIRE(started);
    REQUIRE(test::eventually([&] { return removed(a) + removed(b) == i; }, 20s));
    CHECK(code_of(b.get(started->op.id).error()) == errc::not_found);
  }
  CHECK(removed(a) == 10);
  CHECK(removed(b) == 0);
  CHECK(b.stats().leader.load() == 0);
  // A leaves (its lease ends at shutdown): B leads from its next claim.
  a.shutdown();
  REQUIRE(test::eventually([&] { return b.stats().leader.load() == 1; }, 20s));
  auto next = b.start({"quick", std::nullopt, {}, {}, std::nullopt});
  REQUIRE(next);
  REQUIRE(test::eventually([&] { return removed(b) == 1; }, 20s));
  b.shutdown();
}

TEST_CASE("leader: only the leader fires schedules; a trigger fires where it is asked",
          "[actors][pg][lease][schedule]") {
  pg_engines pg;
  if (!pg)
    return;
  auto a = launch(pg.system(), pg.schema().open());
  auto b = launch(pg.system(), pg.schema().open());
  schedule s;
  s.id = "tick";
  s.workflow = "quick";
  s.every = std::chrono::duration_cast<duration>(1s);
  // Written through the follower; the leader reads it at its next
  // refresh (5 s) and fires from then on.
  REQUIRE(b.create_schedule(s));
  auto fires = [](engine& e) { return e.stats().schedule_fires.load(); };
  REQUIRE(test::eventually([&] { return fires(a) >= 2; }, 20s));
  CHECK(fires(b) == 0);
  auto triggered = b.trigger_schedule("tick");
  REQUIRE(triggered);
  CHECK(fires(b) == 1);
  a.shutdown();
  b.shutdown();
}
