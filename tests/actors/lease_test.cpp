// Two engines on one PostgreSQL schema (two "processes" in one): an
// operation whose owner's lease ended is taken over and completed by the
// other engine, and the old owner's late checkpoint is fenced.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <optional>
#include <thread>

#include <caf/scoped_actor.hpp>
#include <catch2/catch.hpp>
#include <libpq-fe.h>

#include "actors/messages.hpp"
#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "tests/eventually.hpp"
#include "tests/actors/pg_engines.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

// Long enough that no idle renewal or claim of either engine runs during
// the test on its own: the test ends leases explicitly.
constexpr auto ttl = std::chrono::duration_cast<duration>(60s);

registry two_steps(std::function<void()> first) {
  registry reg;
  auto ok = reg.add(workflow("leased", 1)
                      .step(1, make_step("one",
                                         [first](step_context&) {
                                           first();
                                           return done();
                                         }))
                      .step(2, make_step("two", [](step_context&) { return done(); })));
  REQUIRE(ok);
  return reg;
}

engine launch(caf::actor_system& sys, registry reg, store_ptr st) {
  engine_config ec;
  ec.lease_ttl = ttl;
  auto eng = engine::launch(sys, ec, std::move(reg), std::move(st));
  if (!eng)
    FAIL("launch failed: " << message_of(eng.error()));
  return std::move(*eng);
}

// An admin session holding row locks: the engine's renewals wait behind
// them, as if the database were out of reach. Closing it releases them.
class lock_session {
public:
  lock_session(const std::string& uri, const std::string& lock_sql)
    : conn_(PQconnectdb(uri.c_str())) {
    REQUIRE(PQstatus(conn_) == CONNECTION_OK);
    exec("BEGIN");
    exec(lock_sql);
  }
  lock_session(const lock_session&) = delete;
  lock_session& operator=(const lock_session&) = delete;
  ~lock_session() {
    release();
  }
  void release() {
    if (conn_)
      PQfinish(conn_);
    conn_ = nullptr;
  }

private:
  void exec(const std::string& sql) {
    auto* r = PQexec(conn_, sql.c_str());
    auto st = PQresultStatus(r);
    PQclear(r);
    REQUIRE((st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK));
  }
  PGconn* conn_;
};

} // namespace

TEST_CASE("engine lease: a taken-over operation completes once, the old "
          "owner is fenced and joins again",
          "[actors][pg][lease]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  auto& schema = pg.schema();
  // A's first step starts, then blocks until the test lets it go: its
  // result arrives after B took the operation over.
  std::promise<void> release;
  auto released = release.get_future().share();
  std::atomic<int> a_runs{0}, b_runs{0};
  auto a = launch(sys, two_steps([&] {
                    a_runs += 1;
                    released.wait();
                  }),
                  schema.open());
  auto a_owner = a.owner();
  CHECK(!a_owner.empty());
  auto started = a.start({"leased", std::nullopt, {}, {}, std::nullopt});
  REQUIRE(started);
  auto id = started->op.id;
  REQUIRE(test::eventually([&] { return a_runs == 1; }, 20s));
  CHECK(a.stats().leader.load() == 1); // alone on the store
  // The step runs while its start is being written, and that commit
  // renews A's lease: ended before it, the lease would be renewed after,
  // and B would find A alive.
  REQUIRE(test::eventually(
    [&] {
      auto evs = a.operation_events(id, 0, 100);
      return evs && std::any_of(evs->begin(), evs->end(), [](const event& e) {
               return e.type == event_type::step_started;
             });
    },
    20s));

  // A stops renewing (as if paused): its lease expires. B's recovery at
  // launch ends it and claims the operation; B leads from then on.
  schema.admin("UPDATE " + schema.name() + ".process_leases SET lease_expires_at = 0");
  auto b = launch(sys, two_steps([&] { b_runs += 1; }), schema.open());
  CHECK(b.stats().leader.load() == 1);
  auto done_on_b = b.wait(id, 20s);
  REQUIRE(done_on_b);
  CHECK(done_on_b->state == op_state::succeeded);
  CHECK(b_runs == 1);

  // A's step finishes now: its checkpoint is refused (lease lost), A drops
  // the operation and joins again under a new owner id. A waiter on A (its
  // request is queued before the step can finish) is told: with the
  // store's state when the fenced actor reports first, else with an error
  // when the engine drops everything for the lost lease.
  caf::scoped_actor waiter{sys};
  auto waiting = waiter->request(a.dispatcher(), caf::infinite, wait_atom::value, id);
  release.set_value();
  std::optional<operation> waited_op;
  caf::error waited;
  waiting.receive([&](operation& op) { waited_op = std::move(op); },
                  [&](caf::error& err) { waited = err; });
  if (waited_op)
    CHECK(waited_op->state == op_state::succeeded);
  else
    CHECK(code_of(waited) == errc::stale_revision);
  REQUIRE(test::eventually([&] { return a.stats().leases_lost.load() == 1; }, 20s));
  REQUIRE(test::eventually([&] { return a.owner() != a_owner; }, 20s));
  CHECK(!a.owner().empty());
  CHECK(a.stats().leader.load() == 0); // joined again: the youngest lease

  auto check = schema.open();
  auto events = check->events_after(0, 1000);
  REQUIRE(events);
  int terminal = 0, one_succeeded = 0;
  for (auto& e : *events) {
    if (e.operation_id != id)
      continue;
    terminal += is_terminal(e.type) ? 1 : 0;
    one_succeeded += e.type == event_type::step_succeeded && e.step == "one";
  }
  CHECK(terminal == 1);
  CHECK(one_succeeded == 1);
  auto stored = check->load(id);
  REQUIRE(stored);
  REQUIRE(stored->has_value());
  CHECK((*stored)->state == op_state::succeeded);

  // A works on under its new id.
  auto again = a.start({"leased", std::nullopt, {}, {}, std::nullopt});
  REQUIRE(again);
  auto done_on_a = a.wait(again->op.id, 20s);
  REQUIRE(done_on_a);
  CHECK(done_on_a->state == op_state::succeeded);
  auto owners = check->owners();
  REQUIRE(owners);
  CHECK(owners->size() == 2);

  // Shutting down leaves the leases.
  a.shutdown();
  b.shutdown();
  owners = check->owners();
  REQUIRE(owners);
  CHECK(owners->empty());
}

TEST_CASE("engine lease: an engine on a shared store resumes only orphans", "[actors][pg][lease]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  auto& schema = pg.schema();
  std::promise<void> release;
  auto released = release.get_future().share();
  std::atomic<int> a_runs{0}, b_runs{0};
  auto a = launch(sys, two_steps([&] {
                    a_runs += 1;
                    released.wait();
                  }),
                  schema.open());
  auto started = a.start({"leased", std::nullopt, {}, {}, std::nullopt});
  REQUIRE(started);
  REQUIRE(test::eventually([&] { return a_runs == 1; }, 20s));
  // A's lease is live: B does not touch A's operation.
  auto b = launch(sys, two_steps([&] { b_runs += 1; }), schema.open());
  CHECK(b.stats().operations_claimed.load() == 0);
  release.set_value();
  auto res = a.wait(started->op.id, 20s);
  REQUIRE(res);
  CHECK(res->state == op_state::succeeded);
  CHECK(b_runs == 0);
  CHECK(a.stats().leases_lost.load() == 0);
  a.shutdown();
  b.shutdown();
}

TEST_CASE("engine lease: no step begins while the lease may have expired", "[actors][pg][lease]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  auto& schema = pg.schema();
  std::atomic<int> runs{0};
  registry reg;
  REQUIRE(reg.add(workflow("retrying", 1).step(1, make_step("one", [&](step_context& ctx) {
                                                 runs += 1;
                                                 if (ctx.attempt() == 1)
                                                   return retry_after(1500ms, "later");
                                                 return done();
                                               }))));
  engine_config ec;
  ec.lease_ttl = std::chrono::duration_cast<duration>(1s);
  // The actor stays and its own timer begins the next attempt without a
  // write first (a passivated one would be woken through a commit, which
  // the lock holds back anyway).
  ec.passivate_after = std::chrono::duration_cast<duration>(1h);
  auto eng = engine::launch(sys, ec, std::move(reg), schema.open());
  REQUIRE(eng);
  auto started = eng->start({"retrying", std::nullopt, {}, {}, std::nullopt});
  REQUIRE(started);
  auto id = started->op.id;
  REQUIRE(test::eventually(
    [&] {
      auto op = eng->get(id);
      return op && op->state == op_state::waiting;
    },
    20s));
  // From here no renewal gets through: the retry falls due after the
  // lease period, when another process could own the operation.
  auto t0 = std::chrono::steady_clock::now();
  lock_session lock{*pg_test_uri(),
                    "SELECT 1 FROM " + schema.name() + ".process_leases FOR UPDATE"};
  std::this_thread::sleep_until(t0 + 2200ms); // retry due at about 1.5 s
  CHECK(runs == 1);
  lock.release();
  auto res = eng->wait(id, 20s);
  REQUIRE(res);
  CHECK(res->state == op_state::succeeded);
  CHECK(runs == 2);
  CHECK(eng->stats().leases_lost.load() == 0);
  eng->shutdown();
}

TEST_CASE("engine lease: a failed operation can be retried through any "
          "process, and only once",
          "[actors][pg][lease]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  auto& schema = pg.schema();
  std::atomic<bool> broken{true};
  auto flaky = [&] {
    registry reg;
    REQUIRE(reg.add(workflow("flaky", 1).step(1, make_step("one", [&](step_context&) {
                                                return broken ? fail("broken") : done();
                                              }))));
    return reg;
  };
  auto a = launch(sys, flaky(), schema.open());
  auto started = a.start({"flaky", std::nullopt, {}, {}, std::nullopt});
  REQUIRE(started);
  auto id = started->op.id;
  auto failed = a.wait(id, 20s);
  REQUIRE(failed);
  REQUIRE(failed->state == op_state::failed);
  // A is alive and last owned it; B retries it and drives it from here.
  auto b = launch(sys, flaky(), schema.open());
  broken = false;
  auto retried = b.retry(id);
  REQUIRE(retried);
  auto done_op = b.wait(id, 20s);
  REQUIRE(done_op);
  CHECK(done_op->state == op_state::succeeded);
  // A retry through A now sees a succeeded operation.
  auto again = a.retry(id);
  REQUIRE_FALSE(again);
  CHECK(code_of(again.error()) == errc::invalid_state);
  a.shutdown();
  b.shutdown();
}
