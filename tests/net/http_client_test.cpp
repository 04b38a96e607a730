#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/http_client.hpp"
#include "tests/net/local_server.hpp"
#include "tests/infra/thread_count.hpp"
#include "tests/infra/tls_files.hpp"

using namespace stepwise;
using namespace stepwise::net;
using namespace std::chrono_literals;
using test::local_server;
using test::thread_count;

namespace {

/// Collects the results of requests 0..n-1 and how often each was answered.
class results {
public:
  explicit results(size_t n) : items_(n), calls_(n, 0) {
    // nop
  }

  http_callback at(size_t i) {
    return [this, i](http_result r) {
      {
        std::lock_guard<std::mutex> guard{mtx_};
        items_[i] = std::move(r);
        if (calls_[i]++ == 0)
          ++answered_;
      }
      cv_.notify_all();
    };
  }

  /// Waits until every request was answered, at most `limit`.
  bool wait_all(std::chrono::milliseconds limit = 60s) {
    std::unique_lock<std::mutex> guard{mtx_};
    return cv_.wait_for(guard, limit, [this] { return answered_ == items_.size(); });
  }

  /// Returns whether every request was answered exactly once.
  bool each_once() const {
    std::lock_guard<std::mutex> guard{mtx_};
    return std::all_of(calls_.begin(), calls_.end(), [](int n) { return n == 1; });
  }

  size_t answered() const {
    std::lock_guard<std::mutex> guard{mtx_};
    return answered_;
  }

  const http_response* response(size_t i) const {
    std::lock_guard<std::mutex> guard{mtx_};
    return items_[i] ? std::get_if<http_response>(&*items_[i]) : nullptr;
  }

  std::optional<http_error_kind> error(size_t i) const {
    std::lock_guard<std::mutex> guard{mtx_};
    if (!items_[i])
      return std::nullopt;
    if (auto err = std::get_if<http_error>(&*items_[i]))
      return err->kind;
    return std::nullopt;
  }

  /// Whether request `i` failed with `request_sent`.
  bool error_sent(size_t i) const {
    std::lock_guard<std::mutex> guard{mtx_};
    auto err = items_[i] ? std::get_if<http_error>(&*items_[i]) : nullptr;
    return err != nullptr && err->request_sent;
  }

  /// How many answers are a response with `status`.
  size_t with_status(int32_t status) const {
    std::lock_guard<std::mutex> guard{mtx_};
    return static_cast<size_t>(std::count_if(items_.begin(), items_.end(), [&](auto& x) {
      auto res = x ? std::get_if<http_response>(&*x) : nullptr;
      return res != nullptr && res->status == status;
    }));
  }

  /// How many answers are an error of `kind`.
  size_t with_error(http_error_kind kind) const {
    std::lock_guard<std::mutex> guard{mtx_};
    return static_cast<size_t>(std::count_if(items_.begin(), items_.end(), [&](auto& x) {
      auto err = x ? std::get_if<http_error>(&*x) : nullptr;
      return err != nullptr && err->kind == kind;
    }));
  }

private:
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::vector<std::optional<http_result>> items_;
  std::vector<int> calls_;
  size_t answered_ = 0;
};

http_request get(std::string url, std::chrono::milliseconds timeout = 0ms) {
  http_request req;
  req.url = std::move(url);
  req.timeout = timeout;
  return req;
}

/// A port on 127.0.0.1 that nothing listens on (bound once, then closed).
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0
      && ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

} // namespace

TEST_CASE("http_client: many requests in flight on one thread", "[http_client]") {
  local_server srv{600};
  REQUIRE(srv.ok());
  constexpr size_t n = 500;
  results res{n};
  auto before = thread_count();
  http_client client;
  for (size_t i = 0; i < n; ++i)
    client.send(get(srv.url("/sleep/200")), res.at(i));
  // While the server sees a crowd, the client still has its one thread.
  REQUIRE(srv.wait_active(100, 30s));
  CHECK(thread_count() <= before + 1);
  auto st = client.stats();
  CHECK(st.in_flight + st.queued + st.completed + st.failed == n);
  REQUIRE(res.wait_all());
  CHECK(res.each_once());
  CHECK(res.with_status(200) == n);
  CHECK(srv.peak() >= 100);
  CHECK(srv.peak() <= 128); // the default cap per host
  st = client.stats();
  CHECK(st.completed == n);
  CHECK(st.failed == 0);
  CHECK(st.in_flight == 0);
  CHECK(st.queued == 0);
}

TEST_CASE("http_client: the connection cap holds", "[http_client]") {
  local_server srv{64};
  REQUIRE(srv.ok());
  constexpr size_t n = 100;
  results res{n};
  http_client_options opts;
  opts.max_host_connections = 16;
  http_client client{opts};
  for (size_t i = 0; i < n; ++i)
    client.send(get(srv.url("/sleep/50")), res.at(i));
  REQUIRE(res.wait_all());
  CHECK(res.with_status(200) == n);
  CHECK(srv.peak() <= 16);
  CHECK(srv.peak() >= 2);
}

TEST_CASE("http_client: 10,000 requests queue behind 128 connections", "[http_client]") {
  local_server srv{160};
  REQUIRE(srv.ok());
  constexpr size_t n = 10'000;
  results res{n};
  http_client client;
  for (size_t i = 0; i < n; ++i)
    client.send(get(srv.url("/fast")), res.at(i));
  REQUIRE(res.wait_all(120s));
  CHECK(res.each_once());
  CHECK(res.with_status(200) == n);
  CHECK(srv.peak() <= 128);
  auto st = client.stats();
  CHECK(st.completed == n);
  CHECK(st.queued + st.in_flight + st.failed == 0);
}

TEST_CASE("http_client: a request's timeout includes its wait for a connection", "[http_client]") {
  local_server srv{8};
  REQUIRE(srv.ok());
  results res{2};
  http_client_options opts;
  opts.max_host_connections = 1;
  http_client client{opts};
  client.send(get(srv.url("/sleep/1000"), 10s), res.at(0));
  REQUIRE(srv.wait_active(1, 10s));
  client.send(get(srv.url("/fast"), 100ms), res.at(1));
  REQUIRE(res.wait_all());
  REQUIRE(res.response(0) != nullptr);
  CHECK(res.response(0)->status == 200);
  REQUIRE(res.error(1) == http_error_kind::timeout);
  CHECK_FALSE(res.error_sent(1)); // the server never saw it
  CHECK(srv.handled() == 1);
}

TEST_CASE("http_client: a slow call times out, a fast one in parallel does not", "[http_client]") {
  local_server srv{8};
  REQUIRE(srv.ok());
  results res{2};
  http_client client;
  client.send(get(srv.url("/sleep/20000"), 300ms), res.at(0));
  client.send(get(srv.url("/fast"), 10s), res.at(1));
  REQUIRE(res.wait_all(20s));
  CHECK(res.error(0) == http_error_kind::timeout);
  CHECK(res.error_sent(0));
  REQUIRE(res.response(1) != nullptr);
  CHECK(res.response(1)->status == 200);
  CHECK(res.response(1)->body == "ok");
  CHECK(client.stats().failed == 1);
  CHECK(client.stats().completed == 1);
}

TEST_CASE("http_client: refused and unresolvable hosts are connect_failed", "[http_client]") {
  auto port = closed_port();
  REQUIRE(port > 0);
  results res{2};
  http_client_options opts;
  opts.connect_timeout = 5s;
  http_client client{opts};
  client.send(get("http://127.0.0.1:" + std::to_string(port) + "/"), res.at(0));
  client.send(get("http://no-such-host.invalid/"), res.at(1));
  REQUIRE(res.wait_all(30s));
  CHECK(res.error(0) == http_error_kind::connect_failed);
  CHECK(res.error(1) == http_error_kind::connect_failed);
  CHECK_FALSE(res.error_sent(0));
  CHECK_FALSE(res.error_sent(1));
}

TEST_CASE("http_client: methods, headers and bodies", "[http_client]") {
  local_server srv{8};
  REQUIRE(srv.ok());
  results res{6};
  http_client client;
  http_request post;
  post.method = http_method::post;
  post.url = srv.url("/echo");
  post.headers = {{"Content-Type", "application/json"}, {"X-Test", "yes"}};
  post.body = R"({"a":1})";
  client.send(post, res.at(0));
  http_request put = post;
  put.method = http_method::put;
  put.headers.clear();
  client.send(put, res.at(1));
  http_request del;
  del.method = http_method::del;
  del.url = srv.url("/echo");
  client.send(del, res.at(2));
  http_request bad = get(srv.url("/echo"));
  bad.headers = {{"X-Test", "a\r\nInjected: yes"}};
  client.send(bad, res.at(3));
  client.send(get("ftp://127.0.0.1/"), res.at(4));
  client.send(get(srv.url("/nothing-here")), res.at(5));
  REQUIRE(res.wait_all());
  REQUIRE(res.response(0) != nullptr);
  CHECK(res.response(0)->body == R"(POST {"a":1})");
  REQUIRE(res.response(0)->header("x-echo-type") != nullptr);
  CHECK(*res.response(0)->header("X-ECHO-TYPE") == "application/json");
  CHECK(*res.response(0)->header("X-Echo-Test") == "yes");
  REQUIRE(res.response(1) != nullptr);
  CHECK(res.response(1)->body == R"(PUT {"a":1})");
  CHECK(*res.response(1)->header("x-echo-type") == ""); // none sent
  REQUIRE(res.response(2) != nullptr);
  CHECK(res.response(2)->body == "DELETE ");
  CHECK(res.error(3) == http_error_kind::other);
  CHECK(res.error(4) == http_error_kind::other);
  REQUIRE(res.response(5) != nullptr);
  CHECK(res.response(5)->status == 404);
}

TEST_CASE("http_client: https with a CA file, without one, and unverified", "[http_client]") {
  test::tls_files tls;
  REQUIRE(tls.ok);
  local_server srv{8, tls.cert, tls.key};
  REQUIRE(srv.ok());
  results res{3};
  http_client_options trusting;
  trusting.ca_file = tls.cert;
  http_client_options unverified;
  unverified.verify_tls = false;
  http_client with_ca{trusting};
  http_client system_ca;
  http_client no_check{unverified};
  with_ca.send(get(srv.url("/fast")), res.at(0));
  system_ca.send(get(srv.url("/fast")), res.at(1));
  no_check.send(get(srv.url("/fast")), res.at(2));
  REQUIRE(res.wait_all());
  REQUIRE(res.response(0) != nullptr);
  CHECK(res.response(0)->body == "ok");
  CHECK(res.error(1) == http_error_kind::tls);
  REQUIRE(res.response(2) != nullptr);
  CHECK(res.response(2)->status == 200);
}

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
