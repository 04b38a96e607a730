// The HTTP client's life: stop, the last owner dropped in a callback, the
// order of waiting requests, cancel.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>

#include "tests/net/client_support.hpp"
#include "tests/net/local_server.hpp"

using namespace stepwise;
using namespace stepwise::net;
using namespace std::chrono_literals;
using test::get;
using test::local_server;
using test::results;

TEST_CASE("http_client: stop answers every open request shutting_down once", "[http_client]") {
  local_server srv{32};
  REQUIRE(srv.ok());
  constexpr size_t n = 40;
  results res{n + 1};
  http_client_options opts;
  opts.max_host_connections = 8;
  http_client client{opts};
  for (size_t i = 0; i < n; ++i)
    client.send(get(srv.url("/hold")), res.at(i));
  REQUIRE(srv.wait_active(8, 30s)); // 8 in flight, 32 waiting for a connection
  client.stop();
  CHECK(res.answered() == n); // before stop returned
  client.send(get(srv.url("/fast")), res.at(n));
  CHECK(res.answered() == n + 1); // after stop: before send returned
  CHECK(res.each_once());
  CHECK(res.with_error(http_error_kind::shutting_down) == n + 1);
  size_t sent = 0;
  for (size_t i = 0; i < n; ++i)
    sent += res.error_sent(i) ? 1 : 0;
  CHECK(sent == 8); // the ones the server holds; the other 32 never left
  auto st = client.stats();
  CHECK(st.failed == n + 1);
  CHECK(st.queued + st.in_flight + st.completed == 0);
  client.stop(); // idempotent
}

TEST_CASE("http_client: a callback may drop the last owner of the client", "[http_client]") {
  local_server srv{8};
  REQUIRE(srv.ok());
  auto client = std::make_shared<http_client>();
  std::weak_ptr<http_client> weak = client;
  std::mutex mtx;
  std::condition_variable cv;
  bool done = false;
  client->send(get(srv.url("/hold")), [&, owner = client](http_result) mutable {
    owner.reset(); // the last owner: destroyed on its own I/O thread
    std::lock_guard<std::mutex> guard{mtx};
    done = true;
    cv.notify_all();
  });
  client.reset();
  srv.release();
  std::unique_lock<std::mutex> guard{mtx};
  REQUIRE(cv.wait_for(guard, 30s, [&] { return done; }));
  CHECK(weak.expired());
}

TEST_CASE("http_client: requests waiting for a connection go out in the order sent",
          "[http_client]") {
  local_server srv{8};
  REQUIRE(srv.ok());
  constexpr size_t n = 200;
  std::mutex mtx;
  std::vector<size_t> order;
  results res{n};
  http_client_options opts;
  opts.max_host_connections = 4;
  http_client client{opts};
  for (size_t i = 0; i < n; ++i) {
    auto done = res.at(i);
    client.send(get(srv.url("/sleep/2")), [&, i, done](http_result r) {
      {
        std::lock_guard<std::mutex> guard{mtx};
        order.push_back(i);
      }
      done(std::move(r));
    });
  }
  REQUIRE(res.wait_all());
  CHECK(res.with_status(200) == n);
  CHECK(srv.peak() <= 4);
  // Four at a time, first sent first served: request k starts only once
  // k - 3 earlier ones were answered, so the p-th answer is to a request
  // sent at most 3 places after p, however the server's threads run (a
  // slow answer may come any later).
  size_t ahead = 0;
  for (size_t p = 0; p < n; ++p)
    ahead = std::max(ahead, order[p] > p ? order[p] - p : 0);
  CHECK(ahead <= 3);
}

TEST_CASE("http_client: cancel ends a transfer under way and one that waits, once each",
          "[http_client]") {
  local_server srv{8};
  REQUIRE(srv.ok());
  results res{3};
  http_client_options opts;
  opts.max_host_connections = 1;
  http_client client{opts};
  auto held = client.send(get(srv.url("/hold")), res.at(0));
  REQUIRE(srv.wait_active(1, 30s)); // under way on the one connection
  auto waiting = client.send(get(srv.url("/fast")), res.at(1));
  client.cancel(waiting);
  client.cancel(held);
  // The connection is free again: a new request goes through while the
  // server still holds the canceled one's handler.
  client.send(get(srv.url("/fast")), res.at(2));
  REQUIRE(res.wait_all(30s));
  CHECK(res.each_once());
  CHECK(res.error(0) == http_error_kind::canceled);
  CHECK(res.error_sent(0));
  CHECK(res.error(1) == http_error_kind::canceled);
  CHECK(!res.error_sent(1));
  REQUIRE(res.response(2) != nullptr);
  CHECK(res.response(2)->status == 200);
  client.cancel(held); // answered already: nothing happens
  auto st = client.stats();
  CHECK(st.in_flight == 0);
  CHECK(st.queued == 0);
  CHECK(st.failed == 2);
  CHECK(st.completed == 1);
  srv.release();
}
