// Schedules written in one process reach the others' schedule keepers at
// once: the commit notifies (stepwise_schedules) and they read the
// schedules again, instead of at their next refresh (every 5 s, the
// safety net). Here B's clock stands still, so its refresh never comes:
// only the notification can tell it.
#include <chrono>

#include <catch2/catch.hpp>

#include "actors/virtual_clock.hpp"
#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "tests/actors/pg_engines.hpp"
#include "tests/eventually.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

engine launch_with(caf::actor_system& sys, store_ptr st, std::shared_ptr<stepwise::clock> clk) {
  engine_config ec;
  ec.lease_ttl = std::chrono::duration_cast<duration>(360s);
  ec.clock = std::move(clk);
  auto eng = engine::launch(sys, ec, go_then_done(), std::move(st));
  if (!eng)
    FAIL("launch failed: " << message_of(eng.error()));
  return std::move(*eng);
}

} // namespace

TEST_CASE("schedules: one written in another process is read at once",
          "[actors][pg][lease][schedule]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  auto a = launch_with(sys, pg.schema().open(), nullptr);
  auto still = std::make_shared<virtual_clock>(
    from_micros(std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count()));
  auto b = launch_with(sys, pg.schema().open(), still);
  auto none = b.list_schedules(); // B's first read is in
  REQUIRE(none);
  CHECK(none->empty());

  schedule s;
  s.id = "nightly";
  s.workflow = "w";
  s.every = std::chrono::duration_cast<duration>(1h);
  REQUIRE(a.create_schedule(s));
  REQUIRE(eventually([&] { return static_cast<bool>(b.get_schedule("nightly")); }, 10s));

  REQUIRE(a.pause_schedule("nightly", true));
  REQUIRE(eventually(
    [&] {
      auto got = b.get_schedule("nightly");
      return got && got->schedule.paused;
    },
    10s));

  REQUIRE(a.delete_schedule("nightly"));
  REQUIRE(eventually(
    [&] {
      auto got = b.get_schedule("nightly");
      return !got && code_of(got.error()) == errc::not_found;
    },
    10s));
  a.shutdown();
  b.shutdown();
}
