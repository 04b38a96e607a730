// Background retention through the server (`--retention`): what ended
// longer ago goes, in batches between live work, what lives and what ended
// since stays whole, it goes on after a restart, /metrics shows it, and
// the event log before its horizon answers 410. Time is a virtual clock.
#include <map>

#include <catch2/catch.hpp>

#include "actors/virtual_clock.hpp"
#include "tests/eventually.hpp"
#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

// Returns the value of the unlabelled sample `name` in GET /metrics.
double metric(const http_fixture& fx, const std::string& name) {
  auto r = fx.get("/metrics");
  REQUIRE(r.status == 200);
  auto at = r.body.find("\n" + name + " ");
  REQUIRE(at != std::string::npos);
  return std::stod(r.body.substr(at + name.size() + 2));
}

size_t events_of(const http_fixture& fx, const std::string& id) {
  auto r = fx.get("/api/v1/operations/" + id + "/events");
  REQUIRE(r.status == 200);
  return r.json.at("items").as_array().size();
}

// Moves the clock `step` at a time, at most to `until`, until `pred`
// holds (the keeper's batches answer by message between moves).
bool advance_until(virtual_clock& clk, duration step, time_point until,
                   const std::function<bool()>& pred) {
  return eventually([&] {
    if (pred())
      return true;
    if (clk.now() + step <= until)
      clk.advance(step);
    return false;
  });
}

} // namespace

TEST_CASE("the server removes what ended before --retention, under load and across a restart",
          "[http][retention]") {
  auto clk = std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
  auto t0 = clk->now();
  http_fixture fx;
  fx.stop();
  fx.tune_engine = [clk](engine_config& ec) {
    ec.clock = clk;
    ec.retention = 1min;
    ec.retention_every = 1s;
    ec.retention_batch = 5;
  };
  fx.start();
  std::vector<std::string> early;
  for (int i = 0; i < 12; ++i)
    early.push_back(fx.start_op("quick"));
  for (auto& id : early)
    REQUIRE(fx.finish(id) == "succeeded");
  // Sleeps an hour: live all along.
  auto live = fx.start_op("sleepy");
  REQUIRE(fx.await_event(live, "step_succeeded"));
  auto live_events = events_of(fx, live);
  clk->advance(30s);

  // Load while the early ones pass their minute: each of these ends, and
  // keeps every event.
  std::map<std::string, size_t> later;
  for (int i = 0; i < 40; ++i) {
    auto id = fx.start_op("quick");
    REQUIRE(fx.finish(id) == "succeeded");
    later[id] = events_of(fx, id);
    clk->advance(1s);
  }
  // The later ones ended from t0 + 30 s: none may go before t0 + 90 s.
  REQUIRE(advance_until(*clk, 10ms, t0 + 85s, [&] {
    return metric(fx, "stepwise_retention_operations_removed_total") == 12;
  }));
  for (auto& id : early)
    CHECK(fx.get("/api/v1/operations/" + id).status == 404);
  CHECK(events_of(fx, live) == live_events);
  for (auto& [id, n] : later)
    CHECK(events_of(fx, id) == n);
  CHECK(fx.count_ops() == 41);
  auto horizon = metric(fx, "stepwise_retention_horizon");
  CHECK(horizon > 0);
  CHECK(metric(fx, "stepwise_retention_events_removed_total") > 12 * 3);
  CHECK(metric(fx, "stepwise_retention_errors_total") == 0);
  auto gone = fx.get("/api/v1/events?after=1");
  CHECK(gone.status == 410);
  CHECK(gone.error_code() == "gone");

  // A new process goes on from the stored horizon.
  fx.stop();
  fx.start();
  REQUIRE(advance_until(*clk, 1s, t0 + 10min, [&] { return fx.count_ops() == 1; }));
  CHECK(fx.get("/api/v1/operations/" + live).status == 200);
  CHECK(events_of(fx, live) == live_events);
  CHECK(metric(fx, "stepwise_retention_operations_removed_total") == 40);
  CHECK(metric(fx, "stepwise_retention_horizon") > horizon);
  CHECK(metric(fx, "stepwise_store_bytes") > 0);
}
