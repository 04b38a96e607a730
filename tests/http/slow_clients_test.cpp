// Clients that hold a connection without finishing a request: each is cut
// off at the read deadline, and none holds a thread meanwhile, so that
// everyone else is served at once.

#include <chrono>

#include <catch2/catch.hpp>

#include "http/limits.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/raw_client.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

using steady = std::chrono::steady_clock;

http::server_config short_deadlines(std::chrono::seconds read_timeout) {
  auto cfg = http_fixture::default_config();
  cfg.read_timeout = read_timeout;
  return cfg;
}

double ms_since(steady::time_point t0) {
  return std::chrono::duration<double, std::milli>(steady::now() - t0).count();
}

} // namespace

TEST_CASE("clients stalled mid-header hold no worker and are cut off at the deadline",
          "[http][slow]") {
  http_fixture fx{short_deadlines(3s)};
  // Four times as many as there are workers (16): with a thread per
  // connection none would be left for anyone else until the deadline.
  std::vector<raw_conn> stalled;
  for (int i = 0; i < 64; ++i) {
    stalled.emplace_back(fx.port());
    REQUIRE(stalled.back().send("GET /readyz HTTP/1.1\r\nHost: x\r\nX-Half: a"));
  }
  auto t0 = steady::now();
  for (int i = 0; i < 10; ++i) {
    auto r = fx.get("/readyz");
    CHECK(r.status == 200);
  }
  CHECK(fx.post(ops, R"({"workflow":"quick","input":{}})").status == 201);
  // Well before the stalled clients' deadline.
  CHECK(ms_since(t0) < 2000);
  for (auto& c : stalled) {
    std::string got;
    CHECK(c.await_close(10s, &got));
    // Cut off without an answer: the request never was one.
    CHECK(got.empty());
  }
  auto took = ms_since(t0);
  CHECK(took >= 2900);
  CHECK(took < 8000);
}

TEST_CASE("a head that trickles in is cut off at the deadline of its first byte", "[http][slow]") {
  http_fixture fx{short_deadlines(1s)};
  raw_conn c{fx.port()};
  std::string head = "GET /readyz HTTP/1.1\r\nHost: x\r\nX-Slow: ";
  auto t0 = steady::now();
  bool cut = false;
  // One byte every 100 ms: always within a per-read timeout, never done.
  for (int i = 0; i < 100 && !cut; ++i) {
    cut = !c.send(i < static_cast<int>(head.size()) ? head.substr(static_cast<size_t>(i), 1) : "x")
          || c.await_close(100ms);
  }
  CHECK(cut);
  auto took = ms_since(t0);
  CHECK(took >= 900);
  CHECK(took < 3000);
}

TEST_CASE("a body that stops short is cut off at the body deadline", "[http][slow]") {
  http_fixture fx{short_deadlines(1s)};
  raw_conn c{fx.port()};
  REQUIRE(c.send("POST /api/v1/operations HTTP/1.1\r\nHost: x\r\nContent-Type: "
                 "application/json\r\nContent-Length: 100\r\n\r\n{\"workflow\""));
  auto t0 = steady::now();
  CHECK(c.await_close(5s));
  auto took = ms_since(t0);
  CHECK(took >= 900);
  CHECK(took < 3000);
  CHECK(fx.count_ops() == 0);
}

TEST_CASE("Expect: 100-continue is answered before the body is sent", "[http][slow]") {
  http_fixture fx;
  raw_conn c{fx.port()};
  std::string body = R"({"workflow":"quick","input":{}})";
  REQUIRE(c.send("POST /api/v1/operations HTTP/1.1\r\nHost: x\r\nContent-Type: "
                 "application/json\r\nExpect: 100-continue\r\nContent-Length: "
                 + std::to_string(body.size()) + "\r\n\r\n"));
  std::string got;
  std::string interim = "HTTP/1.1 100 Continue\r\n\r\n";
  auto deadline = steady::now() + 5s;
  while (got.size() < interim.size() && read_some(c.fd(), got, deadline))
    continue;
  REQUIRE(got == interim);
  REQUIRE(c.send(body));
  got.clear();
  while (got.find("\r\n\r\n") == std::string::npos && read_some(c.fd(), got, deadline))
    continue;
  CHECK(raw_status(got) == 201);
}

TEST_CASE("a declared body over every limit is 413 at once, before any 100 Continue",
          "[http][slow]") {
  http_fixture fx;
  // Past what is kept (max body) and what is drained for a 413 alike.
  for (std::string expect : {"", "Expect: 100-continue\r\n"}) {
    raw_conn c{fx.port()};
    REQUIRE(c.send("POST /api/v1/operations HTTP/1.1\r\nHost: x\r\nContent-Type: "
                   "application/json\r\n"
                   + expect + "Content-Length: 200000000\r\n\r\n"));
    std::string got;
    CHECK(c.await_close(5s, &got));
    INFO(got);
    CHECK(raw_status(got) == 413);
    CHECK(got.find("100 Continue") == std::string::npos);
    CHECK(got.find("payload_too_large") != std::string::npos);
  }
  // Over what is kept, within what is drained: refused before the client
  // sends it when it asks first.
  raw_conn c{fx.port()};
  REQUIRE(c.send("POST /api/v1/operations HTTP/1.1\r\nHost: x\r\nContent-Type: "
                 "application/json\r\nExpect: 100-continue\r\nContent-Length: "
                 + std::to_string(http::limits{}.max_body_bytes + 1) + "\r\n\r\n"));
  std::string got;
  CHECK(c.await_close(5s, &got));
  CHECK(raw_status(got) == 413);
  CHECK(got.find("100 Continue") == std::string::npos);
}

TEST_CASE("pipelined requests are answered in order on one connection", "[http][slow]") {
  http_fixture fx;
  raw_conn c{fx.port()};
  REQUIRE(c.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /nothing HTTP/1.1\r\nHost: "
                 "x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  std::string got;
  CHECK(c.await_close(5s, &got));
  INFO(got);
  auto first = got.find("HTTP/1.1 200");
  auto second = got.find("HTTP/1.1 404");
  // /readyz: 200 once recovery is done, 503 before (a loaded machine can
  // still be recovering the fixture's fresh store); either is its answer.
  auto third = got.find("HTTP/1.1 ", second + 1);
  CHECK(first == 0);
  REQUIRE(second != std::string::npos);
  REQUIRE(third != std::string::npos);
  auto rest = got.substr(third);
  CHECK(((raw_status(rest) == 200 && rest.find("\"ready\"") != std::string::npos)
         || (raw_status(rest) == 503 && rest.find("not_ready") != std::string::npos)));
}

TEST_CASE("a body over the limit is read for its 413 and the connection serves on",
          "[http][slow]") {
  auto cfg = http_fixture::default_config();
  cfg.lim.max_body_bytes = 4096;
  cfg.lim.max_drain_bytes = 64 * 1024;
  http_fixture fx{cfg};
  raw_conn c{fx.port()};
  std::string big(20000, 'x');
  REQUIRE(c.send("POST /api/v1/operations HTTP/1.1\r\nHost: x\r\nContent-Type: "
                 "application/json\r\nContent-Length: "
                 + std::to_string(big.size()) + "\r\n\r\n" + big
                 + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  std::string got;
  CHECK(c.await_close(5s, &got));
  CHECK(raw_status(got) == 413);
  CHECK(got.find("payload_too_large") != std::string::npos);
  CHECK(got.find("HTTP/1.1 200") != std::string::npos);
  // Beyond what is worth draining: answered, then closed unread.
  raw_conn d{fx.port()};
  REQUIRE(d.send("POST /api/v1/operations HTTP/1.1\r\nHost: x\r\nContent-Type: "
                 "application/json\r\nTransfer-Encoding: chunked\r\n\r\n"));
  std::string chunk = "10000\r\n" + std::string(0x10000, 'y') + "\r\n";
  bool sent = true;
  for (int i = 0; i < 4 && sent; ++i)
    sent = d.send(chunk);
  got.clear();
  CHECK(d.await_close(5s, &got));
  CHECK(raw_status(got) == 413);
  CHECK(got.find("Connection: close") != std::string::npos);
}
