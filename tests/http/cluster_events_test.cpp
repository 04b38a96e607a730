// Event readers on a shared store: one feed per server reads what every
// server wrote, and long polls and streams are served from it, so that
// many readers cost no store read each per poll, and an event written by
// another server reaches them at once.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/eventually.hpp"
#include "tests/http/pg_servers.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

TEST_CASE("long polls on one server get another server's events from one feed, not a store "
          "read each",
          "[http][process][pg][cluster]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  key_dir kd;
  auto a = start_pg_server(schema->uri(), kd.keys);
  auto b = start_pg_server(schema->uri(), kd.keys);
  // Something written first, so that the polls begin past the start.
  auto first = to_reply(
    b.client().Post("/api/v1/operations", R"({"workflow":"demo","input":{}})", "application/json"));
  REQUIRE(first.status == 201);
  int64_t after = 0;
  REQUIRE(eventually(
    [&] {
      auto page = to_reply(a.client().Get("/api/v1/events?after=0&limit=1000"));
      auto& items = page.json.at("items").as_array();
      if (items.empty())
        return false;
      after = items.back().at("seq").as_int64();
      return items.back().at("type") == "operation_succeeded";
    },
    30s));

  constexpr int polls = 100;
  auto store_reads = [&] { return a.metric("stepwise_http_event_reads_total{source=\"store\"}"); };
  std::atomic<int> answered{0}, with_b{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < polls; ++i)
    readers.emplace_back([&] {
      auto r =
        to_reply(a.client().Get(("/api/v1/events?wait=30&after=" + std::to_string(after)).c_str()));
      if (r.status != 200)
        return;
      ++answered;
      auto& items = r.json.at("items").as_array();
      if (!items.empty() && items.front().at("type") == "operation_created")
        ++with_b;
    });
  REQUIRE(eventually([&] { return a.metric("stepwise_http_waiting_requests") == polls; }, 30s));
  auto reads_before = store_reads();
  // Three seconds of waiting: fifteen polls each of the store before.
  std::this_thread::sleep_for(3s);
  auto reads_waiting = store_reads() - reads_before;
  auto created = to_reply(
    b.client().Post("/api/v1/operations", R"({"workflow":"demo","input":{}})", "application/json"));
  REQUIRE(created.status == 201);
  for (auto& t : readers)
    t.join();
  CHECK(answered == polls);
  CHECK(with_b == polls);
  // The feed's own reads (one a second, and one per commit it heard of),
  // not one per poll: 100 polls over 3 s read the store 1,500 times before.
  INFO("store reads while waiting: " << reads_waiting
                                     << ", in all: " << store_reads() - reads_before);
  CHECK(reads_waiting <= 10);
  CHECK(store_reads() - reads_before <= 30);
}
