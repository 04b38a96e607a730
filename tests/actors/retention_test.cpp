// The retention keeper (actors/retention_keeper.hpp): removes what ended
// longer ago than `engine_config::retention`, in paced batches, keeps what
// lives, goes on after a restart, and shows its work in the metrics.
#include <catch2/catch.hpp>

#include "actors/retention_pacing.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;
using test::one;

namespace {

registry workflows() {
  registry reg;
  REQUIRE(reg.add(workflow("quick", 1).step(1, ok("a")).step(2, ok("b"))));
  REQUIRE(reg.add(workflow("waits", 1).step(1, await_signal("wait", "go", std::nullopt))));
  return reg;
}

engine_config with_retention(duration keep, size_t batch = 2) {
  engine_config ec;
  ec.retention = keep;
  ec.retention_batch = batch;
  ec.retention_every = 1s;
  return ec;
}

size_t stored(memory_store& st) {
  list_filter f;
  f.limit = 1000;
  auto page = st.list(f);
  REQUIRE(page);
  return page->items.size();
}

bool exists(memory_store& st, const std::string& id) {
  auto op = st.load(id);
  REQUIRE(op);
  return op->has_value();
}

// Moves the clock a second at a time until `pred` holds (the keeper's
// batches answer by message, between moves).
bool moving_until(harness& h, const std::function<bool()>& pred) {
  return h.eventually([&] {
    if (pred())
      return true;
    h.clk->advance(1s);
    return false;
  });
}

} // namespace

TEST_CASE("retention removes what ended before it, batch by batch, and keeps what lives",
          "[actors][retention]") {
  harness h{workflows(), nullptr, with_retention(1min)};
  std::vector<std::string> quick;
  for (int i = 0; i < 5; ++i)
    quick.push_back(h.start("quick"));
  auto live = h.start("waits");
  for (auto& id : quick)
    CHECK(h.finish(id).state == op_state::succeeded);
  REQUIRE(h.await(live, event_type::step_started, "wait"));
  // Not yet a minute: nothing goes.
  h.clk->advance(30s);
  REQUIRE(h.eventually([&] { return h.eng.stats().retention_horizon.load() == 0; }));
  CHECK(stored(*h.store) == 6);
  // Ended a minute ago: removed, five in three batches of two.
  REQUIRE(moving_until(h, [&] { return stored(*h.store) == 1; }));
  CHECK(exists(*h.store, live));
  CHECK(h.eng.stats().retention_operations_removed.load() == 5);
  CHECK(h.eng.stats().retention_events_removed.load() > 5 * 3);
  CHECK(h.eng.stats().retention_horizon.load() > 0);
  CHECK(h.eng.stats().retention_errors.load() == 0);
  auto events = h.store->events_after(0, 1000);
  REQUIRE(events);
  for (auto& e : *events)
    CHECK(e.operation_id == live);
  // The live one ends; a minute later it goes too.
  auto res = h.eng.signal(live, {"go", {}, {}});
  REQUIRE(res);
  CHECK(h.finish(live).state == op_state::succeeded);
  REQUIRE(moving_until(h, [&] { return stored(*h.store) == 0; }));
  CHECK(h.eng.stats().retention_operations_removed.load() == 6);
}

TEST_CASE("retention goes on after a restart", "[actors][retention]") {
  auto st = std::make_shared<memory_store>();
  auto clk = std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
  {
    harness h{workflows(), st, engine_config{}, clk};
    for (int i = 0; i < 3; ++i)
      h.finish(h.start("quick"));
  }
  clk->advance(2h);
  // Without retention nothing is removed.
  {
    harness h{workflows(), st, engine_config{}, clk};
    h.clk->advance(2min);
    CHECK(stored(*st) == 3);
  }
  harness h{workflows(), st, with_retention(1h, 100), clk};
  REQUIRE(moving_until(h, [&] { return stored(*st) == 0; }));
  auto horizon = st->horizon();
  REQUIRE(horizon);
  CHECK(*horizon > 0);
  REQUIRE(h.eventually([&] { return h.eng.stats().retention_horizon.load() == *horizon; }));
}

TEST_CASE("retention paces its batches by what they take", "[actors][retention]") {
  engine_config ec;
  CHECK(retention_period(ec) == 1min);
  ec.retention = 30 * 24h;
  CHECK(retention_period(ec) == 5min);
  ec.retention = 1min;
  CHECK(retention_period(ec) == 6s);
  ec.retention = 2s;
  CHECK(retention_period(ec) == 1s);
  ec.retention_every = 250ms;
  CHECK(retention_period(ec) == 250ms);
  CHECK(retention_pause(0ms) == retention_min_pause);
  CHECK(retention_pause(50ms) == 200ms);
  CHECK(retention_pause(5s) == retention_max_pause);
  ec.retention_batch = 0;
  CHECK(retention_batch_size(ec) == 1);
}
