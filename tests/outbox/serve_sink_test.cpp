// The real `stepwise serve` with a sink from its config file, driven by the
// CLI as a user would: every event reaches the webhook, signed; `stepwise
// sinks` and /metrics show the sink; a restart goes on from the cursor
// (nothing twice after a clean stop); the key shows nowhere.

#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "storage/open_store.hpp"
#include "tests/durability/child_process.hpp"
#include "tests/outbox/receiver.hpp"
#include "tests/outbox/support.hpp"
#include "tests/storage/store_backends.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

constexpr const char* key = "serve-key-7f3a";

std::string binary() {
  auto p = std::getenv("STEPWISE_BIN");
  return p != nullptr ? p : "build/stepwise";
}

std::string slurp(const std::string& path) {
  std::ifstream in{path};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `stepwise ARGS` and returns its output (stdout and stderr).
std::string cli(const std::string& args) {
  return run_captured(binary() + " " + args);
}

// `stepwise serve --config CONFIG`, its stderr in LOG.
struct server {
  pid_t pid;
  std::string log;
  std::string url;

  server(const std::string& config, std::string log_path, int seed) : log(std::move(log_path)) {
    pid = spawn({"/bin/sh", "-c",
                 "exec " + binary() + " serve --config " + config + " --sim-seed "
                   + std::to_string(seed) + " 2>" + log});
    const std::string marker = "listening on ";
    REQUIRE(eventually([&] { return slurp(log).find(marker) != std::string::npos; }, 20s));
    auto text = slurp(log);
    auto at = text.find(marker) + marker.size();
    url = text.substr(at, text.find(' ', at) - at);
  }

  // SIGTERM; returns the exit code.
  int stop() {
    ::kill(pid, SIGTERM);
    auto status = reap(pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

int64_t lag_of(const std::string& json) {
  auto doc = boost::json::parse(json).as_object();
  return doc.at("items").at(0).at("lag").as_int64();
}

} // namespace

TEST_CASE("stepwise serve delivers to a sink of its config file, and the CLI "
          "shows it",
          "[outbox][cli][process]") {
  temp_dir dir;
  webhook_receiver rx{key};
  rx.fail_every(5);
  std::ofstream{dir.file("hook.key")} << key << "\n";
  std::ofstream{dir.file("sw.conf")}
    << "listen = 127.0.0.1:0\nstore = sqlite:" << dir.file("sw.db") << "\n"
    << "sink = hook=webhook:" << rx.url() << ",secret-file=" << dir.file("hook.key") << "\n";
  auto input = " --input '{\"name\":\"rt1\",\"template\":\"outputs.url: http://rt1\","
               "\"template_type\":\"TOSCA\",\"deployment_location\":{\"name\":\"dc1\"}}'";
  std::string shown;
  for (int round = 0; round < 2; ++round) {
    // A new seed each time: the simulated cloud starts afresh with each
    // process, and the same seed would make the same request ids.
    server srv{dir.file("sw.conf"), dir.file("err" + std::to_string(round)), round + 1};
    auto started = cli("ops start provision_runtime --url " + srv.url + input);
    INFO(started);
    REQUIRE(started.find("started op-") != std::string::npos);
    // The operation ends and the sink catches up with the log.
    REQUIRE(eventually(
      [&] {
        auto list = cli("ops list --state succeeded --url " + srv.url);
        return list.find("op-") != std::string::npos
               && lag_of(cli("sinks --json --url " + srv.url)) == 0
               && std::count(list.begin(), list.end(), '\n') == round + 2;
      },
      30s));
    shown = cli("sinks --url " + srv.url);
    CHECK(shown.find("hook") != std::string::npos);
    CHECK(shown.find("(this server)") != std::string::npos);
    httplib::Client c{srv.url};
    auto metrics = c.Get("/metrics");
    REQUIRE(metrics);
    CHECK(metrics->body.find("stepwise_sink_delivered_total{sink=\"hook\"}") != std::string::npos);
    CHECK(metrics->body.find(key) == std::string::npos);
    CHECK(srv.stop() == 0);
    CHECK(slurp(srv.log).find(key) == std::string::npos);
  }
  CHECK(shown.find(key) == std::string::npos);
  auto st = open_store("sqlite:" + dir.file("sw.db"));
  REQUIRE(st);
  auto events = (*st)->events_after(0, 100000);
  REQUIRE(events);
  auto got = check_delivery(*events, from_webhook(rx.accepted()));
  INFO("first problem: " << (got.problems.empty() ? "" : got.problems.front()));
  CHECK(got.problems.empty());
  // A clean stop wrote the cursor: the second server sent nothing again.
  CHECK(got.duplicates == 0);
  CHECK(rx.bad_signatures() == 0);
}

TEST_CASE("a bad --sink stops stepwise serve with the reason", "[outbox][cli][process]") {
  auto out = cli("serve --listen 127.0.0.1:0 --sink 'hook=webhook:ftp://u:pw@h/x'");
  CHECK(out.find("--sink sink 'hook': webhook needs an http:// or https:// URL")
        != std::string::npos);
  CHECK(out.find("pw@") == std::string::npos);
  out = cli("serve --listen 127.0.0.1:0 --sink 'https://u:pw@h/x'");
  CHECK(out.find("error: --sink expected NAME=webhook:URL") != std::string::npos);
  CHECK(out.find("pw@") == std::string::npos);
}
