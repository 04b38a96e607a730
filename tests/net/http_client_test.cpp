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
#include "tests/net/client_support.hpp"
#include "tests/net/local_server.hpp"
#include "tests/infra/thread_count.hpp"
#include "tests/infra/tls_files.hpp"

using namespace stepwise;
using namespace stepwise::net;
using namespace std::chrono_literals;
using test::closed_port;
using test::get;
using test::local_server;
using test::results;
using test::thread_count;

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
