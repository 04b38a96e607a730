#include <catch2/catch.hpp>

#include <algorithm>

#include "net/http_queue.hpp"

using namespace stepwise::net;
using namespace stepwise::net::detail;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<http_transfer> transfer(const std::string& url, http_counters& n) {
  static uint64_t next_id = 0;
  http_request req;
  req.url = url;
  return std::make_unique<http_transfer>(++next_id, std::move(req), nullptr, n);
}

} // namespace

TEST_CASE("http_queue: caps per origin and in total, oldest first", "[http_client]") {
  http_counters n;
  http_queue q{2, 3};
  auto t0 = http_queue::clock::now();
  for (int i = 0; i < 4; ++i)
    q.push(transfer("http://A:1/x" + std::to_string(i), n), t0 + 1s);
  q.push(transfer("http://b:1/y", n), t0 + 1s);
  std::vector<http_queue::ready> started;
  while (auto r = q.next())
    started.push_back(std::move(*r));
  // Two of a:1 (its cap), then the total cap of 3 stops the rest.
  REQUIRE(started.size() == 3);
  std::vector<std::string> urls;
  for (auto& r : started)
    urls.push_back(r.t->request().url);
  CHECK(std::count(urls.begin(), urls.end(), "http://A:1/x0") == 1);
  CHECK(std::count(urls.begin(), urls.end(), "http://A:1/x1") == 1);
  CHECK(std::count(urls.begin(), urls.end(), "http://b:1/y") == 1);
  CHECK(q.waiting() == 2);
  auto first_a = std::find(urls.begin(), urls.end(), "http://A:1/x0") - urls.begin();
  q.finished(started[static_cast<size_t>(first_a)].from);
  auto again = q.next();
  REQUIRE(again);
  CHECK(again->t->request().url == "http://A:1/x2");
  CHECK_FALSE(q.next());
  for (auto& r : started)
    r.t->answer(http_error{});
  again->t->answer(http_error{});
  auto rest = q.take_all();
  REQUIRE(rest.size() == 1);
  rest[0]->answer(http_error{});
}

TEST_CASE("http_queue: expired takes the waiting past their deadline only", "[http_client]") {
  http_counters n;
  http_queue q{1, 0};
  auto t0 = http_queue::clock::now();
  q.push(transfer("http://a/1", n), t0 + 5s);
  q.push(transfer("http://a/2", n), t0 + 1s);
  q.push(transfer("http://a/3", n), http_queue::clock::time_point::max());
  auto late = q.expired(t0 + 2s);
  REQUIRE(late.size() == 1);
  CHECK(late[0]->request().url == "http://a/2");
  CHECK(q.waiting() == 2);
  auto r = q.next();
  REQUIRE(r);
  CHECK(r->t->request().url == "http://a/1");
  CHECK(q.expired(t0 + 1h).empty()); // the one left has no deadline
  for (auto& t : late)
    t->answer(http_error{});
  r->t->answer(http_error{});
  for (auto& t : q.take_all())
    t->answer(http_error{});
}

TEST_CASE("http_queue: the origin is scheme and authority, any case", "[http_client]") {
  CHECK(http_queue::origin_of("HTTP://Example.com:8080/a/b?c") == "http://example.com:8080");
  CHECK(http_queue::origin_of("https://h?x=1") == "https://h");
  CHECK(http_queue::origin_of("https://h") == "https://h");
  CHECK(http_queue::origin_of("nonsense") == "nonsense");
}
