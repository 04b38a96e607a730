// Event streams and long polls hold no thread: hundreds of them, with a
// thousand clients stalled mid-header, leave the probes and the API fast,
// and every stream still gets every event, in order.

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include <catch2/catch.hpp>

#include "net/fd_limit.hpp"
#include "tests/eventually.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/raw_client.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

using steady = std::chrono::steady_clock;

int64_t last_seq(const http_fixture& fx) {
  auto seqs = fx.log_seqs();
  return seqs.empty() ? 0 : seqs.back();
}

// Whether every operation has ended: until then the log may still grow,
// however long it stood still (a loaded machine).
bool all_ended(const http_fixture& fx) {
  auto r = fx.get("/api/v1/operations?state=succeeded&limit=500");
  REQUIRE(r.status == 200);
  return r.json.at("items").as_array().size() == fx.count_ops();
}

double timed_ms(const std::function<void()>& fn) {
  auto t0 = steady::now();
  fn();
  return std::chrono::duration<double, std::milli>(steady::now() - t0).count();
}

// Checks that every stream of `fleet` got exactly `want`, in order.
void check_every_event(const stream_fleet& fleet, const std::vector<int64_t>& want) {
  size_t complete = 0;
  for (size_t i = 0; i < fleet.size(); ++i)
    if (fleet.at(i).ids() == want)
      ++complete;
  CHECK(complete == fleet.size());
}

} // namespace

TEST_CASE("1,000 clients stalled mid-header and 300 streams leave the API fast",
          "[http][streams][load]") {
  REQUIRE(net::raise_fd_limit() >= 4000);
  auto cfg = http_fixture::default_config();
  cfg.lim.max_streams = 400;
  // Longer than the test: the stalled clients stay for all of it.
  cfg.read_timeout = 60s;
  http_fixture fx{cfg};
  auto after = last_seq(fx);
  std::vector<raw_conn> stalled;
  stalled.reserve(1000);
  for (int i = 0; i < 1000; ++i) {
    stalled.emplace_back(fx.port());
    REQUIRE(stalled.back().send("POST /api/v1/operations HTTP/1.1\r\nHost: x\r\nContent-"));
  }
  stream_fleet fleet{fx.port(), 300,
                     get_request("/api/v1/events/stream?after=" + std::to_string(after))};
  REQUIRE(fleet.pump_until([&] { return fleet.admitted() == fleet.size(); }, 20s));
  // 16 workers, 1,300 connections that hold a request open: none of them
  // may hold one.
  std::vector<double> ready_ms, post_ms;
  for (int i = 0; i < 20; ++i) {
    ready_ms.push_back(timed_ms([&] { CHECK(fx.get("/readyz").status == 200); }));
    post_ms.push_back(
      timed_ms([&] { CHECK(fx.post(ops, R"({"workflow":"quick","input":{}})").status == 201); }));
  }
  INFO("slowest /readyz " << *std::max_element(ready_ms.begin(), ready_ms.end()) << " ms, POST "
                          << *std::max_element(post_ms.begin(), post_ms.end()) << " ms");
  // Generous for a loaded machine; a thread per connection took seconds.
  CHECK(*std::max_element(ready_ms.begin(), ready_ms.end()) < 1000);
  CHECK(*std::max_element(post_ms.begin(), post_ms.end()) < 1000);
  // Once the log stops growing, every stream has all of it after `after`.
  std::vector<int64_t> want;
  REQUIRE(eventually(
    [&] {
      auto now = fx.log_seqs(after);
      bool settled = now == want && now.size() >= 60 && all_ended(fx);
      want = std::move(now);
      return settled && fleet.pump_until([&] { return fleet.all_reached(want.back()); }, 200ms);
    },
    20s));
  check_every_event(fleet, want);
  CHECK(fleet.closed() == 0);
  CHECK(fx.srv->connections() >= 1300);
}

TEST_CASE("every stream receives every event of a burst, in order", "[http][streams]") {
  auto cfg = http_fixture::default_config();
  cfg.lim.max_streams = 64;
  http_fixture fx{cfg};
  auto after = last_seq(fx);
  stream_fleet fleet{fx.port(), 50,
                     get_request("/api/v1/events/stream?after=" + std::to_string(after))};
  REQUIRE(fleet.pump_until([&] { return fleet.admitted() == fleet.size(); }, 10s));
  // Four clients at once: the commits group events of several operations.
  std::vector<std::future<void>> posters;
  for (int t = 0; t < 4; ++t)
    posters.push_back(std::async(std::launch::async, [&] {
      auto c = fx.client();
      for (int i = 0; i < 25; ++i)
        c->Post(ops, R"({"workflow":"quick","input":{}})", "application/json");
    }));
  for (auto& p : posters)
    p.get();
  REQUIRE(fx.count_ops() == 100);
  std::vector<int64_t> want;
  REQUIRE(eventually(
    [&] {
      auto now = fx.log_seqs(after);
      bool settled = now == want && !now.empty() && all_ended(fx);
      want = std::move(now);
      return settled && fleet.pump_until([&] { return fleet.all_reached(want.back()); }, 200ms);
    },
    20s));
  CHECK(want.size() >= 300);
  check_every_event(fleet, want);
}

TEST_CASE("a long poll waits without a worker and answers at its event", "[http][streams]") {
  auto cfg = http_fixture::default_config();
  cfg.threads = 2;
  cfg.lim.max_streams = 64;
  http_fixture fx{cfg};
  auto after = last_seq(fx);
  // Far more long polls than workers; each would hold one for 30 s.
  stream_fleet polls{fx.port(), 40,
                     get_request("/api/v1/events?wait=30&after=" + std::to_string(after))};
  CHECK_FALSE(polls.pump_until([&] { return polls.at(0).status() != 0; }, 200ms));
  CHECK(timed_ms([&] { CHECK(fx.get("/readyz").status == 200); }) < 1000);
  auto id = fx.start_op("quick");
  REQUIRE(polls.pump_until(
    [&] {
      for (size_t i = 0; i < polls.size(); ++i)
        if (polls.at(i).body().find(id) == std::string::npos)
          return false;
      return true;
    },
    10s));
  for (size_t i = 0; i < polls.size(); ++i)
    CHECK(polls.at(i).status() == 200);
}

TEST_CASE("without the event cache, streams and long polls read the store on workers",
          "[http][streams]") {
  // As on a store that other processes write: the hub keeps no events.
  auto cfg = http_fixture::default_config();
  cfg.event_cache = 0;
  cfg.threads = 2;
  cfg.lim.max_streams = 64;
  http_fixture fx{cfg};
  auto first = fx.start_op("quick");
  REQUIRE(fx.await_event(first, "operation_succeeded"));
  // From the start of the log: the first page comes from the store.
  stream_fleet fleet{fx.port(), 20, get_request("/api/v1/events/stream")};
  REQUIRE(fleet.pump_until([&] { return fleet.admitted() == fleet.size(); }, 10s));
  stream_fleet poll{fx.port(), 1,
                    get_request("/api/v1/events?wait=10&after=" + std::to_string(last_seq(fx)))};
  for (int i = 0; i < 5; ++i)
    fx.start_op("quick");
  std::vector<int64_t> want;
  REQUIRE(eventually(
    [&] {
      auto now = fx.log_seqs();
      bool settled = now == want && now.size() >= 18;
      want = std::move(now);
      return settled && fleet.pump_until([&] { return fleet.all_reached(want.back()); }, 200ms);
    },
    20s));
  check_every_event(fleet, want);
  REQUIRE(poll.pump_until([&] { return poll.at(0).status() != 0; }, 10s));
  CHECK(poll.at(0).status() == 200);
  CHECK(poll.at(0).body().find("operation_created") != std::string::npos);
}
