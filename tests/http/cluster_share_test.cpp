// Work spreads between real servers on one PostgreSQL: one that joins
// takes a share of the sleeping operations, and the operations of one
// stopped with SIGTERM are taken by the others as it leaves, both by the
// store's notifications rather than at the next lease tick (every 10 s
// here, with --lease-ttl 30). Prints what it measured as a JSON line.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/eventually.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

using steady = std::chrono::steady_clock;

struct server {
  std::unique_ptr<child> proc;
  int port = 0;

  int64_t held() const {
    httplib::Client c("127.0.0.1", port);
    auto r = to_reply(c.Get("/api/v1/cluster"));
    if (r.status != 200)
      return -1;
    auto self = r.json.at("self").as_string();
    for (auto& s : r.json.at("servers").as_array())
      if (s.at("id").as_string() == self)
        return s.at("operations").as_int64();
    return -1;
  }
};

server start(const std::string& store, const std::string& keys) {
  server s;
  s.proc = std::make_unique<child>(std::vector<std::string>{
    stepwise_binary(), "serve", "--store", store, "--listen", "127.0.0.1:0", "--workflows", "bench",
    "--lease-ttl", "30", "--secret-key-file", keys});
  s.port = s.proc->await_port(60s);
  INFO(s.proc->err);
  REQUIRE(s.port > 0);
  return s;
}

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
  temp_dir dir;
  auto keys = dir.path + "/stepwise.keys";
  std::ofstream(keys) << "k1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";
  REQUIRE(::chmod(keys.c_str(), 0600) == 0);
  auto a = start(schema->uri(), keys);
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
  auto b = start(schema->uri(), keys);
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
