// One sink's actor on the virtual clock: a failed delivery is sent again
// only when its backoff ran out, the backoff doubles, and a success moves
// the cursor. Time moves only when the test says so.

#include <atomic>
#include <mutex>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <catch2/catch.hpp>

#include "actors/virtual_clock.hpp"
#include "engine/errc.hpp"
#include "outbox/messages.hpp"
#include "outbox/sink_actor.hpp"
#include "storage/memory_store.hpp"
#include "tests/outbox/support.hpp"

using namespace stepwise;
using namespace stepwise::outbox;
using stepwise::test::eventually;
using namespace std::chrono_literals;

namespace {

/// Fails its first `failures` batches, then acknowledges.
class flaky_destination : public destination {
public:
  explicit flaky_destination(int failures) : failures_(failures) {
    // nop
  }

  size_t window() const override {
    return 1;
  }

  size_t max_batch() const override {
    return 10;
  }

  void send(event_batch_ptr batch, delivery_callback done) override {
    auto n = ++calls_;
    CHECK(batch->size() == 3);
    done(n <= failures_ ? make_error(errc::delivery_failed, "down") : caf::error{});
  }

  void stop() override {
    // nop
  }

  int calls() const {
    return calls_.load();
  }

private:
  int failures_;
  std::atomic<int> calls_{0};
};

} // namespace

TEST_CASE("a failed delivery waits for its backoff on the engine's clock", "[outbox][backoff]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto st = std::make_shared<memory_store>();
  operation op;
  op.id = "op-1";
  op.workflow = "w";
  op.revision = 1;
  op.input = std::make_shared<const boost::json::object>();
  std::vector<event> evs(3);
  for (auto& e : evs)
    e.operation_id = "op-1";
  REQUIRE(st->commit({{checkpoint::kind::create, std::make_shared<const operation>(op), evs}}));
  virtual_clock clock{from_micros(1'795'333'200'000'000)};
  auto dest = std::make_shared<flaky_destination>(2);
  auto ctx = std::make_shared<sink_context>();
  ctx->cfg.name = "hook";
  ctx->dest = dest;
  ctx->st = st;
  ctx->sinks = st.get();
  ctx->pool = std::make_shared<blocking_pool>(1);
  ctx->clock = &clock;
  ctx->holder = "me";
  ctx->steal = true;
  ctx->timing.lease_ttl = 3h; // no renewal or poll gets in the way
  ctx->timing.poll = 1h;
  ctx->timing.busy_for = 0s;
  ctx->timing.backoff_initial = 1s;
  ctx->stats = std::make_shared<sink_stats>();
  ctx->warn = [](const std::string&) {};
  auto sink = spawn_sink(sys, ctx);
  caf::anon_send(sink, ob_wake_atom::value, int64_t{3});
  REQUIRE(eventually([&] { return dest->calls() == 1 && clock.pending() == 2; }));
  // The retry is due after 0.8 to 1 s (jitter), not before.
  auto t0 = clock.now();
  REQUIRE(clock.next_due());
  CHECK(*clock.next_due() >= t0 + 800ms);
  CHECK(*clock.next_due() <= t0 + 1s);
  clock.advance(1s);
  REQUIRE(eventually([&] { return dest->calls() == 2 && clock.pending() == 2; }));
  // Doubled.
  CHECK(*clock.next_due() >= clock.now() + 1600ms);
  CHECK(*clock.next_due() <= clock.now() + 2s);
  clock.advance(2s);
  REQUIRE(eventually([&] { return dest->calls() == 3; }));
  REQUIRE(eventually([&] {
    auto recs = st->sink_records();
    return recs && recs->size() == 1 && recs->front().cursor == 3
           && recs->front().last_error.empty();
  }));
  CHECK(ctx->stats->delivered.load() == 3);
  CHECK(ctx->stats->failed.load() == 2);
  caf::scoped_actor self{sys};
  self->request(sink, 5s, ob_stop_atom::value).receive([](bool) {}, [](caf::error&) {});
  ctx->pool->stop();
}
