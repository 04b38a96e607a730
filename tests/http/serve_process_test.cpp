// Runs the real `stepwise` binary: it serves, answers the CLI, stops with
// exit code 0 on SIGTERM and resumes its operations after a restart; its
// simulated cloud serves the locations --sim-locations names.

#include <signal.h>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"

using namespace stepwise::test;
using steady = std::chrono::steady_clock;

TEST_CASE("stepwise serve stops on SIGTERM with 0 and resumes after a restart", "[http][process]") {
  temp_dir dir;
  auto store = "sqlite:" + dir.path + "/sw.db";
  std::string id;
  {
    child srv({stepwise_binary(), "serve", "--listen", "127.0.0.1:0", "--store", store});
    auto port = srv.await_port(std::chrono::seconds(20));
    INFO(srv.err);
    REQUIRE(port > 0);
    auto url = "http://127.0.0.1:" + std::to_string(port);
    auto started =
      run_cli("ops start demo --input '{\"name\":\"t\",\"token\":\"tok-123\"}' --url " + url);
    INFO(started);
    auto at = started.find("started ");
    REQUIRE(at != std::string::npos);
    id = started.substr(at + 8, started.find(' ', at + 8) - at - 8);
    auto listed = run_cli("ops list --url " + url);
    CHECK(listed.find(id) != std::string::npos);
    CHECK(listed.find("STATE") != std::string::npos);
    auto shown = run_cli("ops show " + id + " --url " + url);
    CHECK(shown.find("greet") != std::string::npos);
    CHECK(shown.find("tok-123") == std::string::npos);
    CHECK(run_cli("events --url " + url).find("operation_created") != std::string::npos);
    CHECK(run_cli("ops show nope --url " + url).find("404 not_found") != std::string::npos);
    REQUIRE(::kill(srv.pid, SIGTERM) == 0);
    CHECK(srv.wait_exit(std::chrono::seconds(30)) == 0);
  }
  {
    child srv({stepwise_binary(), "serve", "--listen", "127.0.0.1:0", "--store", store});
    auto port = srv.await_port(std::chrono::seconds(20));
    REQUIRE(port > 0);
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(30, 0);
    // The demo sleeps 2 s and retries; after the restart it must finish.
    int64_t after = 0;
    bool done = false;
    auto deadline = steady::now() + std::chrono::seconds(30);
    while (!done && steady::now() < deadline) {
      auto r = to_reply(c.Get("/api/v1/events?wait=5&limit=1000&after=" + std::to_string(after)));
      REQUIRE(r.status == 200);
      for (auto& e : r.json.at("items").as_array())
        done =
          done || (e.at("operation_id") == id.c_str() && e.at("type") == "operation_succeeded");
      after = r.json.at("next_after").as_int64();
    }
    CHECK(done);
    REQUIRE(::kill(srv.pid, SIGINT) == 0);
    CHECK(srv.wait_exit(std::chrono::seconds(30)) == 0);
  }
}

TEST_CASE("stepwise serve --help documents every flag", "[http][process]") {
  auto help = run_cli("serve --help");
  for (auto s :
       {"--listen", "STEPWISE_LISTEN", "--store", "--config", "--http-threads", "--log-level"})
    CHECK(help.find(s) != std::string::npos);
  CHECK(run_cli("serve --bogus").find("unknown flag") != std::string::npos);
}

TEST_CASE("a store password never reaches the output", "[http][process]") {
  auto out = run_cli("serve --listen 127.0.0.1:0 --insecure-plaintext-secrets --store "
                     "postgresql://ann:topsecret@127.0.0.1:1/db");
  INFO(out);
  CHECK(out.find("topsecret") == std::string::npos);
  CHECK(out.find("ann:***@") != std::string::npos);
}

TEST_CASE("stepwise serve --driver URL mounts the Infrastructure API", "[http][process][infra]") {
  temp_dir dir;
  // Port 1 refuses connections: every driver call is a temporary error.
  child srv({stepwise_binary(), "serve", "--listen", "127.0.0.1:0", "--store",
             "sqlite:" + dir.path + "/sw.db", "--driver", "http://127.0.0.1:1/api/infrastructure"});
  auto port = srv.await_port(std::chrono::seconds(20));
  INFO(srv.err);
  REQUIRE(port > 0);
  httplib::Client c("127.0.0.1", port);
  auto r = to_reply(c.Post("/api/infrastructure/find",
                           R"({"deploymentLocation":{"name":"l"},"template":"t",)"
                           R"("templateType":"T","instanceName":"n"})",
                           "application/json"));
  INFO(r.body);
  CHECK(r.status == 503);
  CHECK(r.json.at("status") == 503);
  CHECK(r.json.at("localizedMessage").is_string());
  auto get = to_reply(c.Get("/api/infrastructure/create"));
  CHECK(get.status == 405);
  CHECK(get.json.at("status") == 405);
}

TEST_CASE("serve --sim-locations: any other location is unreachable", "[http][process][infra]") {
  temp_dir dir;
  child srv({stepwise_binary(), "serve", "--listen", "127.0.0.1:0", "--store",
             "sqlite:" + dir.path + "/sw.db", "--sim-locations", "eu-1"});
  auto port = srv.await_port(std::chrono::seconds(20));
  INFO(srv.err);
  REQUIRE(port > 0);
  httplib::Client c("127.0.0.1", port);
  auto create = [&](const std::string& location) {
    return to_reply(c.Post("/api/infrastructure/create",
                           R"({"deploymentLocation":{"name":")" + location
                             + R"(","type":"sim"},"template":"outputs.url: x",)"
                               R"("templateType":"TOSCA","properties":{},"systemProperties":{}})",
                           "application/json"));
  };
  CHECK(create("eu-1").status == 202);
  // The default locations are not served any more.
  auto refused = create("dc1");
  CHECK(refused.status == 400);
  CHECK(refused.json.at("status") == 400);
  CHECK(std::string(refused.json.at("localizedMessage").as_string()).find("eu-1")
        != std::string::npos);
}
