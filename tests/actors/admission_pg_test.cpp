// Admission with two engines on one PostgreSQL schema (two "processes" in
// one): an operation queued behind one of the other engine is admitted by
// that engine's round and started by its own engine, which learns of it
// only by its periodic look (`engine_config::admission_poll`).
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "tests/actors/pg_engines.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

/// Which engine ran which operation, in the order they ran.
struct run_log {
  std::mutex mtx;
  std::vector<std::pair<std::string, std::string>> runs; // engine, tag

  void add(const std::string& engine, const std::string& tag) {
    std::lock_guard<std::mutex> g{mtx};
    runs.emplace_back(engine, tag);
  }

  std::vector<std::pair<std::string, std::string>> all() {
    std::lock_guard<std::mutex> g{mtx};
    return runs;
  }
};

/// A keyed workflow whose step records the engine it ran in; the operation
/// tagged "first" waits for `gate`.
registry keyed(const std::string& engine, run_log& log, std::shared_future<void> gate) {
  registry reg;
  REQUIRE(reg.add(workflow("keyed", 1)
                    .step(1, make_step("only",
                                       [&log, engine, gate](step_context& ctx) {
                                         std::string tag =
                                           ctx.input().at("tag").as_string().c_str();
                                         log.add(engine, tag);
                                         if (tag == "first")
                                           gate.wait();
                                         return done();
                                       }))
                    .serialize_by("/name")));
  return reg;
}

engine launch_without_takeover(caf::actor_system& sys, registry reg, store_ptr st) {
  engine_config ec;
  ec.lease_ttl = 60s; // no takeover during the test
  ec.admission_poll = 300ms;
  auto eng = engine::launch(sys, ec, std::move(reg), std::move(st));
  if (!eng)
    FAIL("launch failed: " << message_of(eng.error()));
  return std::move(*eng);
}

std::string start(engine& eng, const std::string& tag) {
  auto res = eng.start({"keyed", std::nullopt, {{"name", "rt"}, {"tag", tag}}, {}, std::nullopt});
  REQUIRE(res);
  return res->op.id;
}

} // namespace

TEST_CASE("a key passes between two engines on PostgreSQL: each starts its own operations "
          "when the other's round admits them",
          "[actors][pg][admission]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  auto& schema = pg.schema();
  std::promise<void> release;
  auto gate = release.get_future().share();
  run_log log;
  auto a = launch_without_takeover(sys, keyed("a", log, gate), schema.open());
  auto b = launch_without_takeover(sys, keyed("b", log, gate), schema.open());
  auto first = start(b, "first");
  auto second = start(a, "second");
  auto third = start(b, "third");
  auto fourth = start(a, "fourth");
  auto check = schema.open();
  auto stored = [&](const std::string& id) {
    auto op = check->load(id);
    REQUIRE(op);
    REQUIRE(op->has_value());
    return **op;
  };
  // The first runs in B; the others wait for it, whoever created them.
  auto until = std::chrono::steady_clock::now() + 20s;
  while (stored(fourth).blocked_by != third && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  CHECK(stored(second).blocked_by == first);
  CHECK(stored(third).blocked_by == second);
  CHECK(stored(fourth).blocked_by == third);
  CHECK(a.get(second)->state == op_state::pending);
  release.set_value();
  for (auto& [eng, id] : {std::pair{&b, first}, {&a, second}, {&b, third}, {&a, fourth}}) {
    auto done = eng->wait(id, 20s);
    REQUIRE(done);
    CHECK(done->state == op_state::succeeded);
  }
  // In creation order, each in the engine that created it.
  using run = std::pair<std::string, std::string>;
  CHECK(log.all()
        == std::vector<run>{{"b", "first"}, {"a", "second"}, {"b", "third"}, {"a", "fourth"}});
  // One at a time: each started after the one before it ended.
  auto events = check->events_after(0, 1000);
  REQUIRE(events);
  std::map<std::string, int64_t> started, ended;
  for (auto& e : *events) {
    if (e.type == event_type::step_started && !started.count(e.operation_id))
      started[e.operation_id] = e.seq;
    if (is_terminal(e.type))
      ended[e.operation_id] = e.seq;
  }
  CHECK(started[second] > ended[first]);
  CHECK(started[third] > ended[second]);
  CHECK(started[fourth] > ended[third]);
  a.shutdown();
  b.shutdown();
}
