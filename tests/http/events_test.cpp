#include <chrono>
#include <atomic>
#include <future>
#include <map>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;
using steady = std::chrono::steady_clock;

namespace {

struct sse_frame {
  int64_t id = 0;
  std::string type;
  boost::json::value data;
};

// Reads the event stream (`query`: its parameters, as `?type=...`) until
// `count` events arrived (bounded by the client's read timeout and the stop
// condition).
std::vector<sse_frame> read_stream(const http_fixture& fx, int64_t last_id, size_t count,
                                   const std::string& query = "") {
  auto c = fx.client();
  c->set_read_timeout(10, 0);
  std::vector<sse_frame> frames;
  std::string buf;
  sse_frame cur;
  httplib::Headers headers;
  if (last_id >= 0)
    headers.emplace("Last-Event-ID", std::to_string(last_id));
  auto res = c->Get("/api/v1/events/stream" + query, headers, [&](const char* d, size_t n) {
    buf.append(d, n);
    size_t pos;
    while ((pos = buf.find('\n')) != std::string::npos) {
      auto line = buf.substr(0, pos);
      buf.erase(0, pos + 1);
      if (line.empty()) {
        if (cur.id != 0)
          frames.push_back(cur);
        cur = sse_frame{};
        if (frames.size() >= count)
          return false;
      } else if (line.rfind("id: ", 0) == 0) {
        cur.id = std::stoll(line.substr(4));
      } else if (line.rfind("event: ", 0) == 0) {
        cur.type = line.substr(7);
      } else if (line.rfind("data: ", 0) == 0) {
        cur.data = boost::json::parse(line.substr(6));
      }
    }
    return true;
  });
  return frames;
}

} // namespace

TEST_CASE("events are listed oldest first with strictly increasing seq", "[http][events]") {
  http_fixture fx;
  auto id = fx.start_op("quick");
  REQUIRE(fx.finish(id) == "succeeded");
  REQUIRE(fx.await_event(id, "operation_succeeded"));
  auto r = fx.get("/api/v1/events?after=0&limit=1000");
  REQUIRE(r.status == 200);
  auto& items = r.json.at("items").as_array();
  REQUIRE(items.size() >= 3);
  CHECK(items.front().at("type") == "operation_created");
  CHECK(items.back().at("type") == "operation_succeeded");
  int64_t prev = 0;
  for (auto& e : items) {
    CHECK(e.at("seq").as_int64() > prev);
    prev = e.at("seq").as_int64();
    CHECK(e.at("operation_id") == id.c_str());
    CHECK(e.at("time").is_string());
  }
  CHECK(r.json.at("next_after") == prev);
  auto page = fx.get("/api/v1/events?after=0&limit=1");
  CHECK(page.json.at("items").as_array().size() == 1);
  CHECK(page.json.at("next_after") == items.front().at("seq"));
  auto none = fx.get("/api/v1/events?after=" + std::to_string(prev));
  CHECK(none.json.at("items").as_array().empty());
  CHECK(none.json.at("next_after") == prev);
}

TEST_CASE("a long poll returns as soon as an event exists", "[http][events]") {
  http_fixture fx;
  auto seqs = fx.log_seqs();
  int64_t after = seqs.empty() ? 0 : seqs.back();
  auto started = steady::now();
  auto poll = std::async(std::launch::async, [&] {
    return fx.get("/api/v1/events?wait=30&after=" + std::to_string(after));
  });
  // The poll is waiting (no event yet); it must not answer before one exists.
  CHECK(poll.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout);
  auto id = fx.start_op("quick");
  auto r = poll.get();
  auto took = steady::now() - started;
  REQUIRE(r.status == 200);
  REQUIRE_FALSE(r.json.at("items").as_array().empty());
  CHECK(r.json.at("items").as_array()[0].at("operation_id") == id.c_str());
  CHECK(took < std::chrono::seconds(10));
}

TEST_CASE("a long poll without events answers empty after its wait", "[http][events]") {
  http_fixture fx;
  auto started = steady::now();
  auto r = fx.get("/api/v1/events?wait=0.3&after=1000000");
  auto took = steady::now() - started;
  REQUIRE(r.status == 200);
  CHECK(r.json.at("items").as_array().empty());
  CHECK(took >= std::chrono::milliseconds(290));
  CHECK(took < std::chrono::seconds(5));
}

TEST_CASE("the event stream resumes after Last-Event-ID with no gap and no "
          "duplicate",
          "[http][events][sse]") {
  http_fixture fx;
  auto a = fx.start_op("quick");
  auto b = fx.start_op("quick");
  REQUIRE(fx.await_event(a, "operation_succeeded"));
  REQUIRE(fx.await_event(b, "operation_succeeded"));
  auto log = fx.log_seqs();
  REQUIRE(log.size() >= 6);
  auto first = read_stream(fx, -1, log.size());
  REQUIRE(first.size() == log.size());
  for (size_t i = 0; i < log.size(); ++i) {
    CHECK(first[i].id == log[i]);
    CHECK(first[i].data.at("seq") == log[i]);
    CHECK(first[i].type == std::string(first[i].data.at("type").as_string()));
  }
  auto mid = log[log.size() / 2];
  auto rest = read_stream(fx, mid, log.size() - log.size() / 2 - 1);
  std::vector<int64_t> got;
  for (auto& f : rest)
    got.push_back(f.id);
  CHECK(
    got
    == std::vector<int64_t>(log.begin() + static_cast<ptrdiff_t>(log.size() / 2 + 1), log.end()));
}

TEST_CASE("the event stream delivers new events live", "[http][events][sse]") {
  http_fixture fx;
  auto before = fx.log_seqs();
  int64_t last = before.empty() ? 0 : before.back();
  auto reader = std::async(std::launch::async, [&] { return read_stream(fx, last, 3); });
  CHECK(reader.wait_for(std::chrono::milliseconds(100)) == std::future_status::timeout);
  auto id = fx.start_op("quick");
  auto frames = reader.get();
  REQUIRE(frames.size() == 3);
  CHECK(frames[0].id > last);
  CHECK(frames[0].type == "operation_created");
  CHECK(frames[0].data.at("operation_id") == id.c_str());
}

TEST_CASE("the event stream resumes across a server restart", "[http][events][sse]") {
  http_fixture fx;
  auto a = fx.start_op("quick");
  REQUIRE(fx.await_event(a, "operation_succeeded"));
  auto before = fx.log_seqs();
  auto last = before.back();
  fx.stop();
  fx.start();
  auto b = fx.start_op("quick");
  REQUIRE(fx.await_event(b, "operation_succeeded"));
  auto after = fx.log_seqs(last);
  REQUIRE_FALSE(after.empty());
  CHECK(after.front() > last);
  auto frames = read_stream(fx, last, after.size());
  std::vector<int64_t> got;
  for (auto& f : frames)
    got.push_back(f.id);
  CHECK(got == after);
  CHECK(frames.front().data.at("operation_id") == b.c_str());
}

TEST_CASE("waiting requests are bounded", "[http][events]") {
  auto cfg = http_fixture::default_config();
  cfg.lim.max_streams = 1;
  http_fixture fx{cfg};
  // An event stream takes the only slot; its first bytes say it has it.
  std::promise<void> admitted;
  std::atomic<bool> release{false};
  auto holder = std::async(std::launch::async, [&] {
    auto c = fx.client();
    bool first = true;
    return c->Get("/api/v1/events/stream?after=1000000", [&](const char*, size_t) {
      if (first)
        admitted.set_value();
      first = false;
      // The server's heartbeats bring us back here.
      return !release.load();
    });
  });
  REQUIRE(admitted.get_future().wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  auto r = fx.get("/api/v1/events?wait=1&after=1000000");
  CHECK(r.status == 503);
  CHECK(r.error_code() == "too_many_waiters");
  CHECK(r.header("Retry-After") == "1");
  auto s = fx.get("/api/v1/events/stream");
  CHECK(s.status == 503);
  // A poll that does not wait is always served.
  CHECK(fx.get("/api/v1/events?after=1000000").status == 200);
  release = true;
  holder.get();
  // The server notices the stream's client left and frees the slot.
  auto deadline = steady::now() + std::chrono::seconds(5);
  while (fx.get("/api/v1/events?wait=0.05&after=1000000").status != 200 && steady::now() < deadline)
    continue;
  CHECK(fx.get("/api/v1/events?wait=0.05&after=1000000").status == 200);
}

TEST_CASE("a type filter keeps only the events it names, and pages past the rest",
          "[http][events][filter]") {
  http_fixture fx;
  for (auto target : {"/api/v1/events?type=operation_succeeded,bogus",
                      "/api/v1/events/stream?type=bogus", "/api/v1/events?type="}) {
    auto r = fx.get(target);
    CHECK(r.status == 400);
    CHECK(r.error_code() == "invalid_argument");
  }
  CHECK(fx.get("/api/v1/events?type=bogus").body.find("'bogus'") != std::string::npos);
  auto a = fx.start_op("quick");
  auto b = fx.start_op("quick");
  REQUIRE(fx.await_event(a, "operation_succeeded"));
  REQUIRE(fx.await_event(b, "operation_succeeded"));
  auto log = fx.log_seqs();
  auto r = fx.get("/api/v1/events?after=0&limit=1000&type=operation_created,operation_succeeded");
  REQUIRE(r.status == 200);
  auto& items = r.json.at("items").as_array();
  REQUIRE(items.size() == 4);
  for (auto& e : items)
    CHECK((e.at("type") == "operation_created" || e.at("type") == "operation_succeeded"));
  // Past the dropped events too: the next page starts after the log's end.
  CHECK(r.json.at("next_after") == log.back());
  auto page = fx.get("/api/v1/events?after=0&limit=2&type=operation_succeeded");
  CHECK(page.json.at("items").as_array().empty());
  CHECK(page.json.at("next_after") == log[1]);
  // The stream sends only the terminal events, in log order.
  auto frames = read_stream(fx, 0, 2, "?type=operation_succeeded");
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].data.at("operation_id") == a.c_str());
  CHECK(frames[1].data.at("operation_id") == b.c_str());
  for (auto& f : frames)
    CHECK(f.type == "operation_succeeded");
}

TEST_CASE("a filtered long poll and stream wait past the events they drop",
          "[http][events][filter]") {
  http_fixture fx;
  auto before = fx.log_seqs();
  int64_t last = before.empty() ? 0 : before.back();
  auto poll = std::async(std::launch::async, [&] {
    return fx.get("/api/v1/events?wait=30&type=operation_succeeded&after=" + std::to_string(last));
  });
  auto stream = std::async(std::launch::async,
                           [&] { return read_stream(fx, last, 1, "?type=operation_succeeded"); });
  // Enough operations that the stream's first page (500 events) holds none
  // it wants: it must look again at once rather than wait.
  std::vector<std::string> ids;
  for (int i = 0; i < 130; ++i)
    ids.push_back(fx.start_op("quick"));
  auto r = poll.get();
  REQUIRE(r.status == 200);
  auto& items = r.json.at("items").as_array();
  REQUIRE_FALSE(items.empty());
  for (auto& e : items)
    CHECK(e.at("type") == "operation_succeeded");
  auto frames = stream.get();
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].type == "operation_succeeded");
  CHECK(frames[0].id > last);
  // From far behind: 130 operations' events before the last succeeded one.
  for (auto& id : ids)
    REQUIRE(fx.await_event(id, "operation_succeeded"));
  auto all = read_stream(fx, last, ids.size(), "?type=operation_succeeded");
  REQUIRE(all.size() == ids.size());
  for (auto& f : all)
    CHECK(f.type == "operation_succeeded");
}

TEST_CASE("the log and its stream follow the operations of a workflow or with labels",
          "[http][events][sse][find]") {
  http_fixture fx;
  auto start = [&](const std::string& workflow, const std::string& team) {
    auto r = fx.post(ops, R"({"workflow":")" + workflow + R"(","input":{},"labels":{"team":")"
                            + team + R"("}})");
    REQUIRE(r.status == 201);
    return std::string(r.json.at("id").as_string());
  };
  auto a = start("quick", "a");
  auto b = start("quick", "b");
  auto c = start("sleepy", "a");
  REQUIRE(fx.await_event(a, "operation_succeeded"));
  REQUIRE(fx.await_event(b, "operation_succeeded"));
  // Waiting on its hour-long nap, c writes nothing more while the test counts its events.
  REQUIRE(fx.await_event(c, "operation_waiting"));
  auto ids_of = [&](const std::string& query) {
    auto r = fx.get("/api/v1/events?after=0&limit=1000" + query);
    REQUIRE(r.status == 200);
    std::map<std::string, size_t> out;
    for (auto& e : r.json.at("items").as_array())
      out[std::string(e.at("operation_id").as_string())] += 1;
    return out;
  };
  auto all = ids_of("");
  REQUIRE(all.at(a) >= 3);
  CHECK(ids_of("&label=team=a") == std::map<std::string, size_t>{{a, all.at(a)}, {c, all.at(c)}});
  CHECK(ids_of("&workflow=quick&label=team=b") == std::map<std::string, size_t>{{b, all.at(b)}});
  CHECK(ids_of("&workflow=sleepy") == std::map<std::string, size_t>{{c, all.at(c)}});
  CHECK(ids_of("&label=team=z").empty());
  CHECK(fx.get("/api/v1/events?label=Team").status == 400);
  CHECK(fx.get("/api/v1/events/stream?label=team").status == 400);
  // The stream: from the start, then live, only the team's operations.
  auto frames = read_stream(fx, 0, all.at(a) + all.at(c), "?label=team=a");
  REQUIRE(frames.size() == all.at(a) + all.at(c));
  for (auto& f : frames)
    CHECK((f.data.at("operation_id") == a.c_str() || f.data.at("operation_id") == c.c_str()));
  auto last = fx.log_seqs().back();
  auto reader =
    std::async(std::launch::async, [&] { return read_stream(fx, last, 2, "?label=team=a"); });
  start("quick", "b");
  auto d = start("quick", "a");
  auto live = reader.get();
  REQUIRE(live.size() == 2);
  CHECK(live[0].type == "operation_created");
  CHECK(live[0].data.at("operation_id") == d.c_str());
  CHECK(live[1].data.at("operation_id") == d.c_str());
}
