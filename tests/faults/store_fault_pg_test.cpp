// PostgreSQL faults under load, on the real binary and a cluster of the
// test's own: the server crashes (pg_ctl -m immediate) and comes back 5 s
// later, or the server ends stepwise's sessions (pg_terminate_backend).
// Either way stepwise stays up, /readyz follows the store, no acknowledged
// operation is lost, no completed step runs again, and the event log has no
// gap or repeat.
#include <thread>

#include <catch2/catch.hpp>

#include "tests/faults/fault_support.hpp"
#include "tests/faults/pg_cluster.hpp"

using namespace stepwise::test;
using steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr size_t operations = 1000;

std::vector<std::string> serve_args(const pg_cluster& pg) {
  return {"--store",           pg.uri(), "--workflows", "bench", "--insecure-plaintext-secrets",
          "--request-timeout", "5"};
}

bool await_acknowledged(const creator& make, size_t n) {
  auto deadline = steady::now() + 60s;
  while (make.acknowledged() < n && steady::now() < deadline)
    std::this_thread::sleep_for(5ms);
  return make.acknowledged() >= n;
}

double seconds_since(steady::time_point t) {
  return std::chrono::duration<double>(steady::now() - t).count();
}

/// A server on a cluster of its own, creating `operations` through faults.
struct under_load {
  pg_cluster pg;
  temp_dir dir;
  fault_server srv{dir.path, serve_args(pg)};
  std::unique_ptr<creator> make;

  under_load() {
    REQUIRE(srv.await_readyz(200, 30s));
    make = std::make_unique<creator>(srv, std::vector<std::string>{"bench_steps", "bench_timers"},
                                     operations);
  }

  /// The end of every fault case: all created, all ended once, a clean log.
  void check_outcome() {
    auto ids = make->finish(120s);
    CHECK(ids.size() == operations);
    check_run(srv, await_ended(srv, ids, 120s), ids);
    CHECK(srv.readyz().first == 200);
    CHECK(srv.stop() == 0);
  }
};

} // namespace

TEST_CASE("PostgreSQL crashes under load and comes back 5 s later", "[faults][pg][process]") {
  under_load run;
  auto& srv = run.srv;
  REQUIRE(await_acknowledged(*run.make, operations / 3));
  run.pg.crash();
  auto crashed = steady::now();
  CHECK(srv.await_readyz(503, 10s));
  auto body = srv.readyz().second;
  INFO(body);
  CHECK(body.find("the store fails") != std::string::npos);
  // Down for 5 s, as the scenario asks: the stepwise side is not
  // what this waits for.
  std::this_thread::sleep_until(crashed + 5s);
  CHECK(run.make->acknowledged() < operations);
  run.pg.restart();
  auto back = steady::now();
  CHECK(srv.await_readyz(200, 30s));
  auto ready_after = seconds_since(back);
  run.check_outcome();
  CHECK(srv.log().find("store answers again after") != std::string::npos);
  print_figure({{"test", "pg_crash"},
                {"operations", operations},
                {"down_s", std::chrono::duration<double>(back - crashed).count()},
                {"ready_after_restart_s", ready_after}});
}

TEST_CASE("stepwise's PostgreSQL sessions are ended under load", "[faults][pg][process]") {
  under_load run;
  auto& srv = run.srv;
  int ended = 0;
  for (auto at : {operations / 5, operations / 2, operations * 4 / 5}) {
    REQUIRE(await_acknowledged(*run.make, at));
    ended += run.pg.terminate_backends();
  }
  CHECK(ended >= 3); // the writer's session at least, each time
  auto t0 = steady::now();
  CHECK(srv.await_readyz(200, 30s));
  auto ready_after = seconds_since(t0);
  run.check_outcome();
  print_figure({{"test", "pg_terminate_backend"},
                {"operations", operations},
                {"sessions_ended", ended},
                {"ready_after_last_s", ready_after}});
}
