// SIGTERM drains the server (tools/drain.hpp): starts get 503
// shutting_down and /readyz 503 at once, the running attempt finishes and
// is written, the server returns 0; an attempt that outlives
// --drain-timeout is left and runs again on the next start. The server runs
// in this process (stepwise::serve, as a host program runs it) and its step
// is held by a gate the test opens: no timing decides the outcome.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <future>
#include <mutex>

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <httplib.h>

#include "storage/open_store.hpp"
#include "tests/eventually.hpp"
#include "tests/http/fake_env.hpp"
#include "tests/shell.hpp"
#include "tools/host.hpp"
#include "tools/serve_options.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

/// Holds the step "hold" until the test opens it or the engine asks the
/// attempt to stop; counts its runs.
struct gate {
  std::mutex mtx;
  std::condition_variable cv;
  int entered = 0;
  bool open = false;
  /// Runs of the step after it.
  std::atomic<int> after{0};

  /// The step's body: true when opened, false when asked to stop.
  bool pass(const stop_token& stop) {
    std::unique_lock<std::mutex> guard{mtx};
    ++entered;
    cv.notify_all();
    stop.on_stop([this] {
      std::lock_guard<std::mutex> g{mtx};
      cv.notify_all();
    });
    cv.wait(guard, [&] { return open || stop.stop_requested(); });
    return open;
  }

  void wait_entered(int n) {
    std::unique_lock<std::mutex> guard{mtx};
    cv.wait(guard, [&] { return entered >= n; });
  }

  void let_through() {
    std::lock_guard<std::mutex> guard{mtx};
    open = true;
    cv.notify_all();
  }
};

/// One run of the server on `db` with the workflow "held" (hold, then
/// after), on its own thread; `url` is known once it listens.
struct server_run {
  std::promise<std::string> listening;
  std::future<int> exit_code;

  server_run(const std::string& db, gate& g, const std::string& drain_timeout) {
    serve_host host;
    host.builtin = false;
    host.workflows = [&g](registry& reg, const host_context&) -> caf::expected<void> {
      workflow wf("held", 1);
      wf.step(10, make_step("hold",
                            [&g](step_context& ctx) {
                              if (!g.pass(ctx.stop()))
                                return fail("stopped");
                              return done();
                            }))
        .step(20, make_step("after", [&g](step_context&) {
                ++g.after;
                return done();
              }));
      return reg.add(wf);
    };
    host.ready = [this](const served& s) { listening.set_value(s.url); };
    std::vector<std::string> args{"--listen",     "127.0.0.1:0",     "--store",
                                  "sqlite:" + db, "--drain-timeout", drain_timeout};
    exit_code = std::async(std::launch::async, [args, host] { return serve(args, host); });
  }
};

/// Starts an operation of "held", waits until its step runs and sends
/// SIGTERM; returns its id.
std::string held_then_term(httplib::Client& cli, gate& g) {
  auto res =
    cli.Post("/api/v1/operations", R"({"workflow":"held","input":{}})", "application/json");
  REQUIRE(res);
  REQUIRE(res->status == 201);
  g.wait_entered(1);
  REQUIRE(::kill(::getpid(), SIGTERM) == 0);
  return std::string(boost::json::parse(res->body).at("id").as_string());
}

operation stored(const std::string& db, const std::string& id) {
  auto st = open_store("sqlite:" + db);
  REQUIRE(st);
  auto op = (*st)->load(id);
  REQUIRE(op);
  REQUIRE(op->has_value());
  return **op;
}

/// Starts the server on `db` again and checks that it resumes `id` to its
/// end, as after a crash; then stops it.
void succeeds_on_next_start(const std::string& db, gate& g, const std::string& id) {
  server_run run{db, g, "60"};
  httplib::Client cli{run.listening.get_future().get()};
  CHECK(eventually([&] {
    auto res = cli.Get("/api/v1/operations/" + id);
    return res && res->status == 200 && boost::json::parse(res->body).at("state") == "succeeded";
  }));
  REQUIRE(::kill(::getpid(), SIGTERM) == 0);
  CHECK(run.exit_code.get() == 0);
  CHECK(stored(db, id).state == op_state::succeeded);
}

/// A store file, the gate, the operation.
struct drain_case {
  temp_dir dir;
  std::string db = dir.path + "/sw.db";
  gate g;
  std::string id;
};

} // namespace

TEST_CASE_METHOD(drain_case,
                 "SIGTERM drains: no new starts, not ready, the running attempt is written",
                 "[http][drain]") {
  {
    server_run run{db, g, "60"};
    httplib::Client cli{run.listening.get_future().get()};
    id = held_then_term(cli, g);
    // The signal is read on the server's thread: wait for it to begin.
    REQUIRE(eventually([&] {
      auto r = cli.Get("/readyz");
      return r && r->status == 503;
    }));
    auto ready = cli.Get("/readyz");
    REQUIRE(ready);
    CHECK(boost::json::parse(ready->body).at("error").at("code") == "shutting_down");
    auto refused =
      cli.Post("/api/v1/operations", R"({"workflow":"held","input":{}})", "application/json");
    REQUIRE(refused);
    CHECK(refused->status == 503);
    auto err = boost::json::parse(refused->body).at("error");
    CHECK(err.at("code") == "shutting_down");
    CHECK_THAT(std::string(err.at("message").as_string()), Catch::Contains("draining"));
    g.let_through();
    CHECK(run.exit_code.get() == 0);
  }
  auto op = stored(db, id);
  REQUIRE(op.steps.size() == 2);
  CHECK(op.steps[0].state == step_state::succeeded);
  // No attempt begins during a drain: the next step waits for the next
  // start (written as begun, as when a crash comes right after a step).
  CHECK(g.after == 0);
  succeeds_on_next_start(db, g, id);
  CHECK(g.entered == 1); // the written step did not run again
  CHECK(g.after == 1);
}

TEST_CASE_METHOD(drain_case,
                 "an attempt that outlives --drain-timeout runs again on the next start",
                 "[http][drain]") {
  {
    server_run run{db, g, "0"};
    httplib::Client cli{run.listening.get_future().get()};
    id = held_then_term(cli, g);
    // Left running at the timeout: the engine asks it to stop, and the
    // server still exits 0.
    CHECK(run.exit_code.get() == 0);
  }
  auto left = stored(db, id);
  CHECK(left.state != op_state::succeeded);
  CHECK(left.steps[0].state != step_state::succeeded);
  g.let_through();
  succeeds_on_next_start(db, g, id);
  CHECK(g.entered == 2);
}

TEST_CASE("--drain-timeout: flag, environment and config file", "[cli][drain]") {
  auto parsed = [](std::vector<std::string> args, std::map<std::string, std::string> env) {
    auto o = tools::parse_serve_options(args, fake_env(env));
    REQUIRE(o);
    return o->drain_timeout_s;
  };
  CHECK(parsed({}, {}) == 30);
  temp_dir dir;
  auto file = dir.path + "/stepwise.conf";
  std::ofstream(file) << "drain-timeout = 5\n";
  CHECK(parsed({}, {{"STEPWISE_CONFIG", file}}) == 5);
  CHECK(parsed({}, {{"STEPWISE_CONFIG", file}, {"STEPWISE_DRAIN_TIMEOUT", "7"}}) == 7);
  CHECK(parsed({"--drain-timeout", "0"}, {{"STEPWISE_DRAIN_TIMEOUT", "7"}}) == 0);
  auto bad = tools::parse_serve_options({"--drain-timeout", "-1"}, fake_env({}));
  REQUIRE_FALSE(bad);
  CHECK_THAT(message_of(bad.error()), Catch::Contains("--drain-timeout"));
}
