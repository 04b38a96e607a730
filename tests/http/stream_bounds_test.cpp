// What one client may hold is bounded, and answered beyond the bound with
// a 503 that names it: long polls and streams in all (--max-streams) and
// per token (--max-streams-per-token), requests waiting for a worker
// (overloaded); and the server stops promptly with streams open.

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <future>
#include <mutex>

#include <catch2/catch.hpp>

#include "http/auth.hpp"
#include "tests/eventually.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/raw_client.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

using steady = std::chrono::steady_clock;

constexpr const char* alice = "alice-token-0123456789";
constexpr const char* bob = "bob-token-0123456789abc";

std::string bearer(const char* token) {
  return std::string("Authorization: Bearer ") + token + "\r\n";
}

reply get_as(const http_fixture& fx, const std::string& target, const char* token) {
  httplib::Headers hs{{"Authorization", std::string("Bearer ") + token}};
  return to_reply(fx.client()->Get(target, hs));
}

// A gate that holds requests of a test route until it opens.
struct gate {
  std::mutex mtx;
  std::condition_variable cv;
  bool open = false;
  int inside = 0;

  void let_through() {
    {
      std::lock_guard<std::mutex> lock{mtx};
      open = true;
    }
    cv.notify_all();
  }
};

// Opens the gate when it goes out of scope, also when a check failed, so
// that the server's workers can end.
struct gate_opener {
  std::shared_ptr<gate> g;
  ~gate_opener() {
    g->let_through();
  }
};

} // namespace

TEST_CASE("streams and long polls beyond --max-streams are 503 naming the bound",
          "[http][streams][bounds]") {
  auto cfg = http_fixture::default_config();
  cfg.lim.max_streams = 3;
  http_fixture fx{cfg};
  stream_fleet held{fx.port(), 3, get_request("/api/v1/events/stream?after=1000000")};
  REQUIRE(held.pump_until([&] { return held.admitted() == 3; }, 10s));
  auto s = fx.get("/api/v1/events/stream");
  CHECK(s.status == 503);
  CHECK(s.error_code() == "too_many_waiters");
  CHECK(s.header("Retry-After") == "1");
  CHECK(s.json.at("error").at("message").as_string().find("--max-streams")
        != boost::json::string::npos);
  CHECK(fx.get("/api/v1/events?wait=1&after=1000000").status == 503);
  // A poll that does not wait is always served.
  CHECK(fx.get("/api/v1/events?after=1000000").status == 200);
}

TEST_CASE("with tokens, each token's streams are bounded too", "[http][streams][bounds][auth]") {
  temp_dir dir;
  auto path = dir.path + "/tokens";
  std::ofstream(path) << "read alice " << alice << "\nread bob " << bob << "\n";
  auto auth = http::authenticator::open(path);
  REQUIRE(auth);
  auto cfg = http_fixture::default_config();
  cfg.auth = *auth;
  cfg.lim.max_streams = 10;
  cfg.lim.max_streams_per_token = 2;
  http_fixture fx{cfg};
  stream_fleet held{fx.port(), 2,
                    get_request("/api/v1/events/stream?after=1000000", bearer(alice))};
  REQUIRE(held.pump_until([&] { return held.admitted() == 2; }, 10s));
  auto third = get_as(fx, "/api/v1/events/stream", alice);
  CHECK(third.status == 503);
  CHECK(third.error_code() == "too_many_waiters");
  auto msg = std::string(third.json.at("error").at("message").as_string());
  CHECK(msg.find("alice") != std::string::npos);
  CHECK(msg.find("--max-streams-per-token") != std::string::npos);
  CHECK(msg.find(alice) == std::string::npos);
  CHECK(get_as(fx, "/api/v1/events?wait=1&after=1000000", alice).status == 503);
  // Another token still has its own.
  CHECK(get_as(fx, "/api/v1/events?wait=0.05&after=1000000", bob).status == 200);
  stream_fleet other{fx.port(), 1, get_request("/api/v1/events/stream?after=1000000", bearer(bob))};
  CHECK(other.pump_until([&] { return other.admitted() == 1; }, 10s));
}

TEST_CASE("requests beyond the workers and their queue are 503 overloaded at once",
          "[http][bounds]") {
  auto cfg = http_fixture::default_config();
  cfg.threads = 2;
  cfg.queue_limit = 1;
  auto g = std::make_shared<gate>();
  http_fixture fx{cfg, nullptr, [g](http::server& srv, engine&) {
                    srv.routes().add("GET", "/test/held",
                                     [g](http::request&, http::server_response& res) {
                                       std::unique_lock<std::mutex> lock{g->mtx};
                                       ++g->inside;
                                       g->cv.notify_all();
                                       g->cv.wait(lock, [&] { return g->open; });
                                       res.set_content("{}", "application/json");
                                     });
                  }};
  std::vector<std::future<reply>> held;
  gate_opener opener{g};
  for (int i = 0; i < 2; ++i)
    held.push_back(std::async(std::launch::async, [&] { return fx.get("/test/held"); }));
  {
    std::unique_lock<std::mutex> lock{g->mtx};
    REQUIRE(g->cv.wait_for(lock, 10s, [&] { return g->inside == 2; }));
  }
  // Both workers are held: of five more requests one waits in the queue,
  // the others are refused at once.
  stream_fleet more{fx.port(), 5, get_request("/healthz")};
  auto answered = [&] {
    size_t n = 0;
    for (size_t i = 0; i < more.size(); ++i)
      n += more.at(i).status() != 0 ? 1 : 0;
    return n;
  };
  REQUIRE(more.pump_until([&] { return answered() == 4; }, 10s));
  for (size_t i = 0; i < more.size(); ++i) {
    if (more.at(i).status() == 0)
      continue;
    CHECK(more.at(i).status() == 503);
    CHECK(more.at(i).body().find("overloaded") != std::string::npos);
    CHECK(more.at(i).body().find("--http-threads") != std::string::npos);
    CHECK(more.at(i).head().find("Retry-After: 1") != std::string::npos);
  }
  g->let_through();
  for (auto& h : held)
    CHECK(h.get().status == 200);
  REQUIRE(more.pump_until([&] { return answered() == 5; }, 10s));
  CHECK(fx.get("/healthz").status == 200);
}

TEST_CASE("stop ends streams and long polls and closes every connection promptly",
          "[http][streams][stop]") {
  auto cfg = http_fixture::default_config();
  cfg.lim.max_streams = 100;
  cfg.read_timeout = 60s;
  http_fixture fx{cfg};
  stream_fleet streams{fx.port(), 50, get_request("/api/v1/events/stream?after=1000000")};
  REQUIRE(streams.pump_until([&] { return streams.admitted() == 50; }, 10s));
  stream_fleet polls{fx.port(), 10, get_request("/api/v1/events?wait=60&after=1000000")};
  std::vector<raw_conn> stalled;
  for (int i = 0; i < 50; ++i) {
    stalled.emplace_back(fx.port());
    REQUIRE(stalled.back().send("GET /healthz HTTP/1.1\r\nHo"));
  }
  raw_conn idle{fx.port()};
  REQUIRE(idle.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  REQUIRE(eventually([&] { return fx.srv->connections() >= 111; }));
  REQUIRE(eventually([&] {
    return fx.get("/metrics").body.find("stepwise_http_waiting_requests 60") != std::string::npos;
  }));
  auto t0 = steady::now();
  fx.srv->stop();
  auto took = steady::now() - t0;
  CHECK(took < 2s);
  CHECK(streams.pump_until([&] { return streams.closed() == 50; }, 5s));
  // The long polls were answered (empty) before their connections closed.
  CHECK(polls.pump_until([&] { return polls.closed() == 10; }, 5s));
  for (size_t i = 0; i < polls.size(); ++i)
    CHECK(polls.at(i).status() == 200);
  for (auto& c : stalled)
    CHECK(c.await_close(5s));
  std::string got;
  CHECK(idle.await_close(5s, &got));
  CHECK(raw_status(got) == 200);
}
