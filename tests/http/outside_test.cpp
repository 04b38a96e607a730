// The server tried from outside, as a user would: the real `stepwise`
// binary, driven over HTTP and by its own command line.
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"
#include "tests/infra/ignition_stub.hpp"

using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

/// A `stepwise serve` on a store of its own; `more` are further flags.
struct served {
  temp_dir dir;
  std::unique_ptr<child> srv;
  int port = 0;
  std::string url;

  explicit served(std::vector<std::string> more = {}) {
    std::vector<std::string> args{stepwise_binary(), "serve",   "--listen",
                                  "127.0.0.1:0",     "--store", "sqlite:" + dir.path + "/sw.db"};
    args.insert(args.end(), more.begin(), more.end());
    srv = std::make_unique<child>(args);
    port = srv->await_port(std::chrono::seconds(20));
    INFO(srv->err);
    REQUIRE(port > 0);
    url = "http://127.0.0.1:" + std::to_string(port);
  }

  std::string cli(const std::string& args) const {
    return run_cli(args + " --url " + url);
  }

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(30, 0);
    c.set_keep_alive(true);
    c.set_tcp_nodelay(true); // else a POST's body waits for the ack of its header
    return c;
  }
};

/// The id in "started ID (...)" of `ops start`.
std::string started_id(const std::string& out) {
  auto at = out.find("started ");
  REQUIRE(at != std::string::npos);
  return out.substr(at + 8, out.find(' ', at + 8) - at - 8);
}

std::string post_json(httplib::Client& c, const std::string& path, const std::string& body,
                      int& status) {
  auto r = to_reply(c.Post(path.c_str(), body, "application/json"));
  status = r.status;
  return r.body;
}

/// Waits (long polls, bounded) for an event of `type` about `id`.
bool await_type(httplib::Client& c, const std::string& id, const std::string& type) {
  int64_t after = 0;
  for (int i = 0; i < 30; ++i) {
    auto r =
      to_reply(c.Get(("/api/v1/events?wait=1&limit=1000&after=" + std::to_string(after)).c_str()));
    if (r.status != 200)
      return false;
    for (auto& e : r.json.at("items").as_array())
      if (e.at("operation_id") == id.c_str() && e.at("type") == type.c_str())
        return true;
    after = r.json.at("next_after").as_int64();
  }
  return false;
}

} // namespace

TEST_CASE("start, a signal at once, a read: the server survives every try",
          "[http][process][interleaving]") {
  // The sequence that crashed the server (a signal's commit overlapping the
  // first step's); STEPWISE_INTERLEAVING_TRIES raises the count.
  auto tries = std::getenv("STEPWISE_INTERLEAVING_TRIES")
                 ? std::strtoul(std::getenv("STEPWISE_INTERLEAVING_TRIES"), nullptr, 10)
                 : 300ul;
  served s;
  // Four clients at once: their commits share batches and their steps
  // queue, so that a signal often lands while a step runs (one client met
  // that window once in a few hundred tries, four within ten).
  constexpr int clients = 4;
  std::atomic<unsigned long> next{0};
  std::atomic<int> failures{0};
  std::mutex first_mtx;
  std::string first_failure;
  auto fail = [&](std::string what) {
    std::lock_guard<std::mutex> guard{first_mtx};
    if (failures++ == 0)
      first_failure = std::move(what);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t)
    threads.emplace_back([&] {
      auto c = s.client();
      for (auto i = next++; i < tries && failures == 0; i = next++) {
        auto created =
          to_reply(c.Post(ops.c_str(), R"({"workflow":"demo","input":{}})", "application/json"));
        if (created.status != 201)
          return fail("try " + std::to_string(i + 1) + ": start answered "
                      + std::to_string(created.status));
        std::string id = created.json.at("id").as_string().c_str();
        auto sig = to_reply(
          c.Post((ops + "/" + id + "/signals/ping").c_str(), R"({"n":1})", "application/json"));
        if (sig.status != 202)
          return fail("try " + std::to_string(i + 1) + ": signal answered "
                      + std::to_string(sig.status));
        auto got = to_reply(c.Get((ops + "/" + id).c_str()));
        if (got.status != 200 || got.json.at("id") != id.c_str())
          return fail("try " + std::to_string(i + 1) + ": read answered "
                      + std::to_string(got.status) + " " + got.body);
      }
    });
  for (auto& t : threads)
    t.join();
  INFO(first_failure << "\n" << s.srv->err);
  CHECK(failures == 0);
  auto c = s.client();
  CHECK(to_reply(c.Get("/healthz")).status == 200);
}

TEST_CASE("stepwise ops cancel, retry, pause, resume and signal, from the command line",
          "[http][process][cli]") {
  served s({"--workflows", "demo,bench"});
  // It sleeps an hour: each request finds it alive however slow the CLI's
  // processes are (the demo, three seconds long, once ended before the
  // cancel on a loaded machine under the sanitizers).
  auto id = started_id(s.cli("ops start bench_sleepers"));
  CHECK_THAT(s.cli("ops pause " + id), Catch::Contains("pause requested for " + id));
  CHECK_THAT(s.cli("ops pause " + id), Catch::Contains("409 invalid_state"));
  CHECK_THAT(s.cli("ops resume " + id), Catch::Contains("resume requested for " + id));
  CHECK_THAT(s.cli("ops signal " + id + " ping --data '{\"a\":1}' --id s-1"),
             Catch::Contains("sent signal ping to " + id));
  CHECK_THAT(s.cli("ops signal " + id + " ping --data '{\"a\":1}' --id s-1"),
             Catch::Contains("already had signal ping"));
  CHECK_THAT(s.cli("ops show " + id + " --json"), Catch::Contains("\"s-1\""));
  CHECK_THAT(s.cli("ops cancel " + id), Catch::Contains("cancel requested for " + id));
  CHECK_THAT(s.cli("ops cancel " + id), Catch::Contains("409 invalid_state"));
  CHECK_THAT(s.cli("ops signal " + id + " ping"), Catch::Contains("409"));
  CHECK_THAT(s.cli("ops cancel missing-op"), Catch::Contains("404 not_found"));
  // A failed operation, retried: a new run, marked in the log.
  auto failed = started_id(s.cli("ops start demo --input '{\"fail\":true}'"));
  auto c = s.client();
  REQUIRE(await_type(c, failed, "operation_failed"));
  CHECK_THAT(s.cli("ops retry " + failed), Catch::Contains("retry requested for " + failed));
  CHECK_THAT(s.cli("events --after 0 --limit 1000"), Catch::Contains("operation_retried"));
}

TEST_CASE("stepwise events --follow prints events as they come", "[http][process][cli]") {
  served s;
  // The follower starts first; an operation started a moment later shows.
  auto out = run_command("(sleep 1; " + stepwise_binary() + " ops start demo --url " + s.url
                         + " >/dev/null) & timeout 4 " + stepwise_binary()
                         + " events --follow --url " + s.url + "; wait");
  CHECK_THAT(out, Catch::Contains("operation_created"));
  CHECK_THAT(out, Catch::Contains("step_started"));
  CHECK_THAT(out, Catch::Contains("greet"));
}

TEST_CASE("a repeated signal_id over HTTP is 200 with the stored signal, once", "[http][process]") {
  served s;
  auto c = s.client();
  auto id = started_id(s.cli("ops start demo"));
  int status = 0;
  auto first =
    post_json(c, ops + "/" + id + "/signals/ping", R"({"n":1,"signal_id":"x-1"})", status);
  CHECK(status == 202);
  auto again =
    post_json(c, ops + "/" + id + "/signals/ping", R"({"n":2,"signal_id":"x-1"})", status);
  CHECK(status == 200);
  auto op = boost::json::parse(again).as_object();
  size_t with_id = 0;
  for (auto& sig : op.at("signals").as_array())
    with_id += sig.at("signal_id") == "x-1" ? 1 : 0;
  CHECK(with_id == 1);
  post_json(c, ops + "/missing/signals/ping", "{}", status);
  CHECK(status == 404);
}

TEST_CASE("build_and_launch: the image builder's image_ready signal ends the wait, and the "
          "launch uses the signalled image",
          "[http][process][infra]") {
  // An external driver that accepts every call and keeps every task in
  // progress: only the signal can end the wait for the image.
  ignition_stub driver;
  driver.answer(202, R"({"infrastructureId":"inf-1","requestId":"req-1","status":"IN_PROGRESS"})");
  served s({"--driver", driver.url()});
  auto c = s.client();
  auto created = to_reply(c.Post(
    ops.c_str(),
    R"({"workflow":"build_and_launch","input":{"name":"app","deployment_location":{"name":"dc1"},)"
    R"("image_template":"img","instance_template":"vm","template_type":"TOSCA"}})",
    "application/json"));
  REQUIRE(created.status == 201);
  std::string id = created.json.at("id").as_string().c_str();
  auto step_state = [&](const std::string& step) {
    auto op = to_reply(c.Get((ops + "/" + id).c_str()));
    for (auto& st : op.json.at("steps").as_array())
      if (st.at("name") == step.c_str())
        return std::string{st.at("state").as_string().c_str()};
    return std::string{};
  };
  // Waiting for the image: the step shows `waiting`, as a sleep would.
  bool waiting = false;
  for (int i = 0; i < 200 && !waiting; ++i) {
    waiting = step_state("await_image") == "waiting";
    if (!waiting)
      std::this_thread::sleep_for(50ms); // real time: the server is another process
  }
  REQUIRE(waiting);
  int status = 0;
  post_json(c, ops + "/" + id + "/signals/image_ready", R"({"image_id":"img-42"})", status);
  REQUIRE(status == 202);
  // The launch's create carries the signalled image.
  bool launched = false;
  for (int i = 0; i < 200 && !launched; ++i) {
    for (auto& body : driver.bodies())
      launched = launched || body.find("img-42") != std::string::npos;
    if (!launched)
      std::this_thread::sleep_for(50ms);
  }
  REQUIRE(launched);
  CHECK(step_state("await_image") == "succeeded");
  auto op = to_reply(c.Get((ops + "/" + id).c_str()));
  CHECK(op.json.at("data").at("image_ready").at("image_id") == "img-42");
  CHECK(to_reply(c.Post((ops + "/" + id + "/cancel").c_str(), "", "application/json")).status
        == 202);
}
