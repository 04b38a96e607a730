// Reads of the event log from before the retention horizon: 410 `gone`
// naming where to read again, on the long poll, the stream and the CLI;
// reads from 0 or from the horizon on get what retention kept. Retention
// runs on a second connection to the server's SQLite file, as
// `stepwise ops purge` does while a server runs: the server's event cache
// still holds the removed events, and must not serve them.

#include <chrono>
#include <set>

#include <catch2/catch.hpp>

#include "engine/retention_store.hpp"
#include "http/openapi.hpp"
#include "storage/sqlite_store.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/openapi_check.hpp"
#include "tests/http/serve_child.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace gone_test {

// A live operation (kept, its events below the horizon), two ended ones
// that retention removes, and one ended after the removal (above it).
struct retained_log {
  http_fixture fx;
  std::string live;
  std::set<std::string> removed;
  std::string later;
  int64_t horizon = 0;

  retained_log() {
    live = fx.start_op("sleepy");
    REQUIRE(fx.await_event(live, "operation_waiting"));
    for (int i = 0; i < 2; ++i) {
      auto id = fx.start_op("quick");
      REQUIRE(fx.finish(id) == "succeeded");
      removed.insert(id);
    }
    auto st = sqlite_store::open(fx.dir.path + "/stepwise.db");
    REQUIRE(st);
    auto* ret = (*st)->retention();
    REQUIRE(ret != nullptr);
    purge_request req;
    req.ended_before = std::chrono::time_point_cast<stepwise::duration>(
      std::chrono::system_clock::now() + std::chrono::hours(1));
    auto res = ret->purge(req);
    REQUIRE(res);
    REQUIRE(res->operations == 2);
    horizon = res->horizon;
    REQUIRE(horizon > 0);
    later = fx.start_op("quick");
    REQUIRE(fx.finish(later) == "succeeded");
    REQUIRE(published(later));
  }

  // Waits (bounded, by long polls from the horizon) until the server's
  // reads show that `op` ended: then its events are in the cache too.
  bool published(const std::string& op) const {
    auto after = horizon;
    for (int i = 0; i < 20; ++i) {
      auto r = fx.get("/api/v1/events?wait=5&limit=1000&after=" + std::to_string(after));
      REQUIRE(r.status == 200);
      for (auto& e : r.json.at("items").as_array())
        if (e.at("operation_id").as_string() == op.c_str()
            && e.at("type").as_string() == "operation_succeeded")
          return true;
      after = r.json.at("next_after").as_int64();
    }
    return false;
  }

  std::string message() const {
    return "events before seq " + std::to_string(horizon + 1)
           + " were removed by retention: read again from after=" + std::to_string(horizon)
           + " (after=0 starts there too)";
  }

  void check_gone(const reply& r) const {
    INFO(r.body);
    CHECK(r.status == 410);
    CHECK(r.error_code() == "gone");
    REQUIRE(r.json.is_object());
    auto& err = r.json.at("error").as_object();
    CHECK(err.at("message").as_string() == message().c_str());
    CHECK(err.at("horizon").as_int64() == horizon);
  }
};

std::set<std::string> operations_of(const reply& r) {
  std::set<std::string> out;
  for (auto& e : r.json.at("items").as_array())
    out.insert(std::string(e.at("operation_id").as_string()));
  return out;
}

// What a stream sent: each event's seq and operation.
struct streamed {
  int status = 0;
  std::vector<int64_t> seqs;
  std::set<std::string> ops;
};

// Reads the stream from `last_id` until an event of `op` arrived (bounded
// by the read timeout).
streamed stream_until(const http_fixture& fx, int64_t last_id, const std::string& op) {
  auto c = fx.client();
  c->set_read_timeout(10, 0);
  streamed out;
  std::string buf;
  httplib::Headers headers{{"Last-Event-ID", std::to_string(last_id)}};
  auto res = c->Get(
    "/api/v1/events/stream", headers,
    [&](const httplib::Response& r) {
      out.status = r.status;
      return r.status == 200;
    },
    [&](const char* d, size_t n) {
      buf.append(d, n);
      size_t pos;
      while ((pos = buf.find('\n')) != std::string::npos) {
        auto line = buf.substr(0, pos);
        buf.erase(0, pos + 1);
        if (line.rfind("id: ", 0) == 0)
          out.seqs.push_back(std::stoll(line.substr(4)));
        if (line.rfind("data: ", 0) == 0) {
          auto id = std::string(boost::json::parse(line.substr(6)).at("operation_id").as_string());
          out.ops.insert(id);
          if (id == op)
            return false;
        }
      }
      return true;
    });
  return out;
}

} // namespace gone_test

TEST_CASE("a long poll from before the retention horizon is 410 gone", "[http][events][gone]") {
  gone_test::retained_log log;
  auto& fx = log.fx;
  validator val{http::openapi_document()};
  auto below = fx.get("/api/v1/events?after=1");
  log.check_gone(below);
  check_documented(val, http::openapi_document(), "/api/v1/events", "get", below);
  log.check_gone(fx.get("/api/v1/events?after=" + std::to_string(log.horizon - 1)));
  // A long poll that would wait answers at once.
  log.check_gone(fx.get("/api/v1/events?wait=30&after=1"));

  // From 0: the log starts after the horizon (the live operation's older
  // events are not in it); none of the removed ones, though the server's
  // cache had them.
  auto all = fx.get("/api/v1/events?after=0&limit=1000");
  REQUIRE(all.status == 200);
  CHECK(gone_test::operations_of(all) == std::set<std::string>{log.later});
  CHECK(all.json.at("items").as_array().at(0).at("seq").as_int64() > log.horizon);
  // Paging from 0 a page at a time reaches the end without a 410.
  int64_t cursor = 0;
  for (int i = 0; i < 100; ++i) {
    auto page = fx.get("/api/v1/events?limit=1&after=" + std::to_string(cursor));
    REQUIRE(page.status == 200);
    if (page.json.at("items").as_array().empty())
      break;
    cursor = page.json.at("next_after").as_int64();
  }
  CHECK(cursor > log.horizon);

  // From the horizon on: everything after it, as before retention.
  auto above = fx.get("/api/v1/events?limit=1000&after=" + std::to_string(log.horizon));
  REQUIRE(above.status == 200);
  CHECK(gone_test::operations_of(above) == std::set<std::string>{log.later});
  for (auto& e : above.json.at("items").as_array())
    CHECK(e.at("seq").as_int64() > log.horizon);
}

TEST_CASE("an event stream from before the retention horizon is 410 gone",
          "[http][events][sse][gone]") {
  gone_test::retained_log log;
  auto& fx = log.fx;
  auto c = fx.client();
  auto below = to_reply(c->Get(
    "/api/v1/events/stream", httplib::Headers{{"Last-Event-ID", std::to_string(log.horizon - 1)}}));
  log.check_gone(below);
  check_documented(validator{http::openapi_document()}, http::openapi_document(),
                   "/api/v1/events/stream", "get", below);
  log.check_gone(fx.get("/api/v1/events/stream?after=1"));

  auto above = gone_test::stream_until(fx, log.horizon, log.later);
  CHECK(above.status == 200);
  REQUIRE(!above.seqs.empty());
  CHECK(above.seqs.front() > log.horizon);
  CHECK(above.ops == std::set<std::string>{log.later});
  // From 0 the stream starts after the horizon too: none of the removed
  // events, though the server's cache had them.
  auto from_start = gone_test::stream_until(fx, 0, log.later);
  CHECK(from_start.status == 200);
  REQUIRE(!from_start.seqs.empty());
  CHECK(from_start.seqs.front() > log.horizon);
  CHECK(from_start.ops == std::set<std::string>{log.later});
}

TEST_CASE("stepwise events says what retention removed and fails", "[http][events][gone][cli]") {
  gone_test::retained_log log;
  auto url = " --url http://127.0.0.1:" + std::to_string(log.fx.port());
  // Only stderr is kept, then the exit code.
  auto run = [&](const std::string& args) {
    return run_cli("events " + args + url + " 2>&1 >/dev/null; echo exit=$?");
  };
  auto expected = "error: 410 gone: " + log.message();
  auto poll = run("--after 1");
  INFO(poll);
  CHECK(poll.find(expected) != std::string::npos);
  CHECK(poll.find("--after " + std::to_string(log.horizon)) != std::string::npos);
  CHECK(poll.find("exit=1") != std::string::npos);
  auto follow = run("--follow --after 1");
  INFO(follow);
  CHECK(follow.find(expected) != std::string::npos);
  CHECK(follow.find("exit=1") != std::string::npos);
  auto ok = run_cli("events --after " + std::to_string(log.horizon) + url + "; echo exit=$?");
  INFO(ok);
  CHECK(ok.find(log.later) != std::string::npos);
  CHECK(ok.find("exit=0") != std::string::npos);
}
