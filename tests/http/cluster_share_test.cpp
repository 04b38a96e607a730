// Work spreads between real servers on one PostgreSQL: one that joins
// takes a share of the sleeping operations, and the operations of one
// stopped with SIGTERM are taken by the others as it leaves, both by the
// store's notifications rather than at the next lease tick (every 10 s
// here, with --lease-ttl 30). Prints what it measured as a JSON line.
#include <signal.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/eventually.hpp"
#include "tests/http/pg_servers.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point t) {
  return std::chrono::duration<double>(steady::now() - t).count();
}

} // namespace

TEST_CASE("a server that joins takes a share of the sleeping operations; a stopped server's "
          "operations move at once",
          "[http][process][pg][cluster]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  key_dir kd;
  const std::vector<std::string> slow_ticks{"--lease-ttl", "30"};
  auto a = start_pg_server(schema->uri(), kd.keys, slow_ticks);
  constexpr int64_t sleeping = 1000;
  httplib::Client c("127.0.0.1", a.port);
  for (int64_t i = 0; i < sleeping; ++i) {
    auto r = to_reply(c.Post("/api/v1/operations", R"({"workflow":"bench_sleepers","input":{}})",
                             "application/json"));
    REQUIRE(r.status == 201);
  }
  REQUIRE(eventually([&] { return a.held() == sleeping; }, 60s));

  // A newcomer asks for work as it joins; the one above its share gives
  // half up at once.
  auto joined = steady::now();
  auto b = start_pg_server(schema->uri(), kd.keys, slow_ticks);
  REQUIRE(eventually([&] { return b.held() >= sleeping / 4; }, 8s));
  auto quarter_after = seconds_since(joined);
  REQUIRE(eventually([&] { return a.held() + b.held() == sleeping && b.held() >= 400; }, 8s));
  auto spread_after = seconds_since(joined);
  auto b_held = b.held();
  CHECK(b_held <= 600);

  // B leaves after its drain: A takes its operations as it goes.
  ::kill(b.proc->pid, SIGTERM);
  REQUIRE(b.proc->wait_exit(60s) == 0);
  auto exited = steady::now();
  REQUIRE(eventually([&] { return a.held() == sleeping; }, 5s));
  auto taken_after = seconds_since(exited);
  std::cout << R"({"test":"cluster_share","sleeping":)" << sleeping << R"(,"joined_held":)"
            << b_held << R"(,"quarter_s":)" << quarter_after << R"(,"spread_s":)" << spread_after
            << R"(,"handover_s":)" << taken_after << "}\n";
}
