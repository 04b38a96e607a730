// Three servers on one PostgreSQL behind a real load balancer (HAProxy,
// round robin, health-checked on /readyz): every control request succeeds
// whichever server it reaches, and its answer already shows what it did.
// Skips without STEPWISE_TEST_PG_URI; fails without haproxy (the test
// command installs it).
#include <netinet/in.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <thread>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/eventually.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/haproxy_cluster.hpp"
#include "tests/http/serve_child.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

TEST_CASE("behind HAProxy over three servers, every control request succeeds on any server",
          "[http][process][pg][cluster]") {
  auto schema = schema_with_haproxy();
  if (!schema)
    return;
  cluster c{schema->uri()};
  auto view = get(c, "/api/v1/cluster");
  REQUIRE(view.status == 200);
  CHECK(view.json.at("servers").as_array().size() == 3);

  // Started round robin: each server drives a third of them.
  std::vector<std::string> sleepers;
  for (int i = 0; i < 24; ++i) {
    auto r = post(c, "/api/v1/operations", R"({"workflow":"bench_sleepers","input":{}})");
    REQUIRE(r.status == 201);
    sleepers.emplace_back(r.json.at("id").as_string());
  }
  std::vector<std::string> failing;
  for (int i = 0; i < 6; ++i) {
    auto r = post(c, "/api/v1/operations", R"({"workflow":"demo","input":{"fail":true}})");
    REQUIRE(r.status == 201);
    failing.emplace_back(r.json.at("id").as_string());
  }
  std::set<std::string> owners;
  for (auto& id : sleepers) {
    REQUIRE(eventually([&] { return state_of(c, id) == "waiting"; }, 30s));
    owners.insert(std::string{get(c, "/api/v1/operations/" + id).json.at("owner").as_string()});
  }
  CHECK(owners.size() == 3);

  // Each request reaches whichever server is next, mostly not the owner;
  // its answer (and the next read, through yet another server) already
  // shows what it did.
  std::map<int, int> statuses;
  int requests = 0;
  auto expect = [&](const reply& r, int status, const std::string& what) {
    ++requests;
    ++statuses[r.status];
    INFO(what << ": " << r.body);
    CHECK(r.status == status);
  };
  for (size_t i = 0; i < sleepers.size(); ++i) {
    auto base = "/api/v1/operations/" + sleepers[i];
    auto paused = post(c, base + "/pause");
    expect(paused, 202, "pause");
    CHECK(paused.json.at("state") == "paused");
    CHECK(state_of(c, sleepers[i]) == "paused");
    auto resumed = post(c, base + "/resume");
    expect(resumed, 202, "resume");
    CHECK(resumed.json.at("state") == "waiting");
    auto sig = R"({"signal_id":"s-)" + std::to_string(i) + R"(","note":"hi"})";
    expect(post(c, base + "/signals/go", sig), 202, "signal");
    expect(post(c, base + "/signals/go", sig), 200, "repeated signal");
  }
  for (auto& id : failing) {
    REQUIRE(eventually([&] { return state_of(c, id) == "failed"; }, 60s));
    expect(post(c, "/api/v1/operations/" + id + "/retry"), 202, "retry");
  }
  for (auto& id : sleepers) {
    expect(post(c, "/api/v1/operations/" + id + "/cancel"), 202, "cancel");
    CHECK(state_of(c, id) == "canceled");
  }
  CHECK(requests >= 100);
  CHECK(statuses[409] == 0);
  for (auto& id : sleepers) {
    auto op = get(c, "/api/v1/operations/" + id);
    CHECK(op.json.at("signals").as_array().size() == 1);
    CHECK(op.json.at("owner").is_null()); // ended: nobody drives it
  }
  CHECK(schema->admin("SELECT count(*) FROM \"" + schema->name() + "\".operation_commands") == "0");
}

TEST_CASE("behind HAProxy, a server killed and another stopped under load lose no acknowledged "
          "operation and record no step twice",
          "[http][process][pg][cluster]") {
  auto schema = schema_with_haproxy();
  if (!schema)
    return;
  cluster c{schema->uri()};
  // Clients keep starting operations and signalling sleepers through the
  // balancer while the servers go.
  std::atomic<bool> stop{false};
  std::mutex mtx;
  std::vector<std::string> acked;
  std::map<int, int> control;
  int cut_off_cancels = 0;
  auto load = [&](int n) {
    std::vector<std::string> mine;
    for (int i = 0; !stop.load(); ++i) {
      auto r = post(c, "/api/v1/operations", R"({"workflow":"demo","input":{}})");
      if (r.status == 201) {
        std::lock_guard<std::mutex> guard{mtx};
        acked.emplace_back(r.json.at("id").as_string());
      }
      auto s = post(c, "/api/v1/operations", R"({"workflow":"bench_sleepers","input":{}})");
      if (s.status != 201)
        continue;
      std::string id{s.json.at("id").as_string()};
      auto sig = post(c, "/api/v1/operations/" + id + "/signals/go",
                      R"({"signal_id":"c)" + std::to_string(n) + "-" + std::to_string(i) + "\"}");
      auto cancel = post(c, "/api/v1/operations/" + id + "/cancel");
      std::lock_guard<std::mutex> guard{mtx};
      // A sleeper sleeps an hour: it ends only if its cancel took, which
      // a cancel cut off with its server (HAProxy's 502) may not have.
      if (cancel.status == 202)
        acked.push_back(id);
      else
        ++cut_off_cancels;
      ++control[sig.status];
      ++control[cancel.status];
    }
  };
  std::thread t1{load, 1};
  std::thread t2{load, 2};
  std::this_thread::sleep_for(2s);
  ::kill(c.servers[0]->pid, SIGKILL);
  std::this_thread::sleep_for(2s);
  ::kill(c.servers[1]->pid, SIGTERM);
  if (auto code = c.servers[1]->wait_exit(60s); code != 0) {
    auto& said = c.servers[1]->err;
    FAIL_CHECK("a stopped server exited "
               << code << "; it said last:\n"
               << said.substr(said.size() - std::min<size_t>(said.size(), 3000)));
  }
  std::this_thread::sleep_for(2s);
  stop = true;
  t1.join();
  t2.join();
  INFO(acked.size() << " operations acknowledged; cancels cut off: " << cut_off_cancels);
  REQUIRE(acked.size() >= 20);
  // Requests cut off with a server were not acknowledged; the others all
  // took effect, whichever server they reached.
  CHECK(control[409] == 0);
  // Every acknowledged operation ends, on the one server left.
  for (auto& id : acked) {
    INFO(id);
    bool ended = eventually(
      [&] {
        auto s = state_of(c, id);
        return s == "succeeded" || s == "canceled";
      },
      60s);
    if (!ended) // what it is
      FAIL(get(c, "/api/v1/operations/" + id).body);
  }
  // Fencing: no step's result recorded twice in a run.
  std::map<std::string, int> succeeded;
  int64_t after = 0;
  for (;;) {
    auto page = get(c, "/api/v1/events?after=" + std::to_string(after) + "&limit=1000");
    REQUIRE(page.status == 200);
    auto& items = page.json.at("items").as_array();
    if (items.empty())
      break;
    for (auto& e : items) {
      if (e.at("type") == "step_succeeded")
        ++succeeded[std::string{e.at("operation_id").as_string()} + "/"
                    + std::string{e.at("step").as_string()}];
      after = e.at("seq").as_int64();
    }
  }
  for (auto& [key, n] : succeeded) {
    INFO(key);
    CHECK(n == 1);
  }
}
