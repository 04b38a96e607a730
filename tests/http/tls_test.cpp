// The in-process server over TLS: plain requests, an event stream that
// reads and writes at once on one TLS connection, and a client that never
// finishes its handshake, cut off at the read deadline.

#include <chrono>
#include <future>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"
#include "tests/http/raw_client.hpp"
#include "tests/infra/tls_files.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<httplib::SSLClient> tls_client(const http_fixture& fx, const tls_files& tls) {
  auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", fx.port());
  c->set_ca_cert_path(tls.cert.c_str());
  c->enable_server_certificate_verification(true);
  c->set_keep_alive(true);
  c->set_read_timeout(10, 0);
  return c;
}

} // namespace

TEST_CASE("the server speaks TLS: requests, streams, and a stalled handshake", "[http][tls]") {
  tls_files tls;
  REQUIRE(tls.ok);
  auto cfg = http_fixture::default_config();
  cfg.tls_cert = tls.cert;
  cfg.tls_key = tls.key;
  cfg.read_timeout = 1s;
  http_fixture fx{cfg};
  REQUIRE(fx.srv->tls());
  auto c = tls_client(fx, tls);
  auto health = c->Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
  auto created = c->Post(ops, R"({"workflow":"quick","input":{}})", "application/json");
  REQUIRE(created);
  CHECK(created->status == 201);
  // Keep-alive: the same connection serves again.
  CHECK(c->Get("/readyz")->status == 200);
  // A stream: its first frames arrive, then one of an operation started
  // while it is open.
  std::promise<void> admitted;
  auto streamed = std::async(std::launch::async, [&] {
    auto s = tls_client(fx, tls);
    std::string got;
    bool first = true;
    s->Get("/api/v1/events/stream", [&](const char* d, size_t n) {
      if (first)
        admitted.set_value();
      first = false;
      got.append(d, n);
      return got.find("operation_succeeded") == std::string::npos
             || got.rfind("operation_succeeded") == got.find("operation_succeeded");
    });
    return got;
  });
  REQUIRE(admitted.get_future().wait_for(10s) == std::future_status::ready);
  auto again = c->Post(ops, R"({"workflow":"quick","input":{}})", "application/json");
  REQUIRE(again);
  auto got = streamed.get();
  auto first = got.find("operation_succeeded");
  REQUIRE(first != std::string::npos);
  CHECK(got.find("operation_succeeded", first + 1) != std::string::npos);
  // A client that connects and never sends its ClientHello.
  raw_conn silent{fx.port()};
  auto t0 = std::chrono::steady_clock::now();
  CHECK(silent.await_close(5s));
  CHECK(std::chrono::steady_clock::now() - t0 < 3s);
  // Plain HTTP on the TLS port gets no answer.
  CHECK(raw_status(raw_exchange(fx.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 3s)) == 0);
}
