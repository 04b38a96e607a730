#include <fstream>
#include <map>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/http/fake_env.hpp"
#include "tests/http/fixture.hpp"
#include "actors/virtual_clock.hpp"
#include "infra/sim_driver.hpp"
#include "infra/ignition_driver.hpp"
#include "tests/infra/driver_calls.hpp"
#include "tools/make_driver.hpp"
#include "tools/serve_options.hpp"
#include "tools/table.hpp"

using namespace stepwise;
using namespace stepwise::tools;
using stepwise::test::fake_env;

TEST_CASE("serve options have the documented defaults", "[cli]") {
  auto o = parse_serve_options({}, fake_env({}));
  REQUIRE(o);
  CHECK(o->listen == "127.0.0.1:8080");
  CHECK(o->host() == "127.0.0.1");
  CHECK(o->port() == 8080);
  CHECK(o->store == "sqlite:./stepwise.db");
  CHECK(o->server_config().keep_alive_max > 5);
}

TEST_CASE("flags win over the environment, which wins over the file", "[cli]") {
  test::temp_dir dir;
  auto file = dir.path + "/stepwise.conf";
  std::ofstream(file) << "# comment\nlisten = 0.0.0.0:9000\nhttp-threads = 40\n"
                         "step-workers=3 # trailing comment\nlog-level = warn\n";
  auto env = fake_env({{"STEPWISE_CONFIG", file},
                       {"STEPWISE_HTTP_THREADS", "50"},
                       {"STEPWISE_STORE", "sqlite:/tmp/x.db"}});
  auto o = parse_serve_options({"--http-threads", "60", "--max-body=2048"}, env);
  REQUIRE(o);
  CHECK(o->listen == "0.0.0.0:9000");
  CHECK(o->http_threads == 60);
  CHECK(o->step_workers == 3);
  CHECK(o->level == log_level::warn);
  CHECK(o->store == "sqlite:/tmp/x.db");
  CHECK(o->max_body == 2048);
  auto only_env = parse_serve_options({}, env);
  REQUIRE(only_env);
  CHECK(only_env->http_threads == 50);
}

TEST_CASE("bad options are errors that name the culprit", "[cli]") {
  auto msg = [](std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    auto o = parse_serve_options(args, fake_env(env));
    REQUIRE_FALSE(o);
    return message_of(o.error());
  };
  CHECK(msg({"--nope", "1"}).find("--nope") != std::string::npos);
  CHECK(msg({"--listen"}).find("needs a value") != std::string::npos);
  CHECK(msg({"--listen", "localhost"}).find("HOST:PORT") != std::string::npos);
  CHECK(msg({"--listen", "h:99999"}).find("port") != std::string::npos);
  CHECK(msg({"--http-threads", "x"}).find("--http-threads") != std::string::npos);
  CHECK(msg({"--store", "mysql://u:pw@h/db"}).find("pw") == std::string::npos);
  CHECK(msg({}, {{"STEPWISE_LOG_LEVEL", "loud"}}).find("STEPWISE_LOG_LEVEL") != std::string::npos);
  CHECK(msg({"--config", "/nonexistent/x"}).find("/nonexistent/x") != std::string::npos);
  CHECK(msg({"serve"}).find("unexpected") != std::string::npos);
}

TEST_CASE("help lists every flag with its variable", "[cli]") {
  auto o = parse_serve_options({"--help"}, fake_env({}));
  REQUIRE(o);
  CHECK(o->help);
  auto h = serve_help();
  for (auto s :
       {"--listen", "STEPWISE_LISTEN", "--store", "STEPWISE_STORE", "--config", "STEPWISE_CONFIG",
        "--http-threads", "--step-workers", "--log-level", "STEPWISE_LOG_LEVEL"})
    CHECK(h.find(s) != std::string::npos);
}

TEST_CASE("passwords in store URIs are never printed", "[cli]") {
  CHECK(redact_uri("postgresql://ann:s3cret@db:5432/sw") == "postgresql://ann:***@db:5432/sw");
  CHECK(redact_uri("postgresql://db/sw?user=a&password=s3cret&x=1")
        == "postgresql://db/sw?user=a&password=***&x=1");
  CHECK(redact_uri("sqlite:./stepwise.db") == "sqlite:./stepwise.db");
}

TEST_CASE("tables pad columns", "[cli]") {
  table t({"A", "LONGER"});
  t.add({"xyz", "1"});
  t.add({"\xc3\xa9", "2"});
  CHECK(t.render() == "A    LONGER\nxyz  1\n\xc3\xa9    2\n");
  CHECK(cell("abcdefghij", 6) == "abc...");
}

TEST_CASE("the infrastructure driver options parse and check their values", "[cli][infra]") {
  auto o = parse_serve_options({}, fake_env({}));
  REQUIRE(o);
  CHECK(o->driver == "sim");
  CHECK(o->sim_latency_min_ms <= o->sim_latency_max_ms);
  CHECK(o->sim_failure_rate == 0.0);
  o = parse_serve_options({"--driver", "http://10.0.0.5:8294", "--sim-latency-ms=5:50",
                           "--sim-failure-rate", "0.25", "--sim-seed", "7"},
                          fake_env({}));
  REQUIRE(o);
  CHECK(o->driver == "http://10.0.0.5:8294");
  CHECK(o->sim_latency_min_ms == 5);
  CHECK(o->sim_latency_max_ms == 50);
  CHECK(o->sim_failure_rate == 0.25);
  CHECK(o->sim_seed == 7);
  o = parse_serve_options({}, fake_env({{"STEPWISE_DRIVER", "https://vim/api"},
                                        {"STEPWISE_SIM_LATENCY_MS", "30"},
                                        {"STEPWISE_SIM_FAILURE_RATE", "1"},
                                        {"STEPWISE_SIM_SEED", "0"}}));
  REQUIRE(o);
  CHECK(o->driver == "https://vim/api");
  CHECK(o->sim_latency_min_ms == 30);
  CHECK(o->sim_latency_max_ms == 30);
  CHECK(o->sim_failure_rate == 1.0);
  CHECK(o->sim_seed == 0);
  for (auto bad : std::vector<std::vector<std::string>>{{"--driver", "ftp://x"},
                                                        {"--driver", "simulated"},
                                                        {"--sim-latency-ms", "50:5"},
                                                        {"--sim-latency-ms", "a"},
                                                        {"--sim-latency-ms", "5:"},
                                                        {"--sim-failure-rate", "1.5"},
                                                        {"--sim-failure-rate", "-0.1"},
                                                        {"--sim-failure-rate", "0.5x"},
                                                        {"--sim-failure-rate", "nan"},
                                                        {"--sim-seed", "-1"}}) {
    INFO(bad[0] << " " << bad[1]);
    auto r = parse_serve_options(bad, fake_env({}));
    REQUIRE_FALSE(r);
    CHECK_THAT(message_of(r.error()), Catch::Contains(bad[0]));
  }
  // A driver URL may carry credentials: it is not quoted back.
  auto r = parse_serve_options({"--driver", "xyz://u:hunter2@h"}, fake_env({}));
  REQUIRE_FALSE(r);
  CHECK(message_of(r.error()).find("hunter2") == std::string::npos);
  auto help = serve_help();
  for (auto flag : {"--driver", "--sim-latency-ms", "--sim-failure-rate", "--sim-seed",
                    "STEPWISE_DRIVER", "STEPWISE_SIM_SEED"})
    CHECK_THAT(help, Catch::Contains(flag));
}

TEST_CASE("make_driver builds the HTTP client for a URL, the sim otherwise", "[cli][infra]") {
  serve_options o;
  auto clk = std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
  o.sim_latency_min_ms = o.sim_latency_max_ms = 5000;
  auto sim = make_driver(o, clk);
  REQUIRE(sim);
  REQUIRE(dynamic_cast<infra::sim_driver*>(sim->get()) != nullptr);
  // The options reach the simulated cloud: the task takes exactly 5 s.
  infra::create_request req;
  req.template_text = "outputs.ip: 10.0.0.1";
  req.template_type = "TOSCA";
  req.location.name = "dc1";
  auto ids = test::create_now(**sim, req);
  REQUIRE(std::holds_alternative<infra::accepted>(ids));
  auto& acc = std::get<infra::accepted>(ids);
  auto status = [&] {
    auto t = test::get_task_now(**sim, acc.infrastructure_id, acc.request_id, req.location);
    REQUIRE(std::holds_alternative<infra::task>(t));
    return std::get<infra::task>(t).status;
  };
  clk->advance(std::chrono::milliseconds(4999));
  CHECK(status() == infra::task_status::in_progress);
  clk->advance(std::chrono::milliseconds(1));
  CHECK(status() == infra::task_status::complete);
  o.driver = "http://127.0.0.1:1/api/infrastructure";
  auto d = make_driver(o, clk);
  REQUIRE(d);
  CHECK(dynamic_cast<infra::ignition_driver*>(d->get()) != nullptr);
  o.driver = "http://u:hunter2@127.0.0.1:1/";
  auto bad = make_driver(o, clk);
  REQUIRE_FALSE(bad);
  CHECK(message_of(bad.error()).find("hunter2") == std::string::npos);
}

TEST_CASE("--limit sets concurrency limits per workflow", "[cli][admission]") {
  auto o = parse_serve_options({"--limit", "provision_runtime=50", "--limit=demo=2,x=1"},
                               test::fake_env({{"STEPWISE_LIMITS", "demo=9,y=3"}}));
  REQUIRE(o);
  CHECK(
    o->limits
    == std::map<std::string, size_t>{{"provision_runtime", 50}, {"demo", 2}, {"x", 1}, {"y", 3}});
  CHECK(o->engine_config().limits.at("demo") == 2);
  for (auto bad : {"demo", "demo=0", "=3", "demo=x", "demo=3x", "demo=,x=1"}) {
    auto r = parse_serve_options({"--limit", bad}, test::fake_env({}));
    REQUIRE_FALSE(r);
    CHECK(message_of(r.error()).find("--limit") != std::string::npos);
  }
}
