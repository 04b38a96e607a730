// Secrets (webhook keys, credentials in URLs, SASL passwords) never appear
// in GET /api/v1/sinks, in /metrics, in stored errors or in logs.

#include <fstream>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "http/server.hpp"
#include "outbox/outbox.hpp"
#include "storage/open_store.hpp"
#include "tests/outbox/fixture.hpp"
#include "tests/outbox/receiver.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

constexpr const char* hook_key = "hk-7f3a9c21-secret";
constexpr const char* url_password = "pw-51d0e8-secret";
constexpr const char* url_token = "tok-9b2c44-secret";
constexpr const char* sasl_password = "sasl-0a6e1f-secret";

std::string write(const temp_dir& dir, const std::string& name, const std::string& text) {
  auto path = dir.file(name);
  std::ofstream{path} << text;
  return path;
}

void check_clean(const std::string& text) {
  INFO(text);
  for (auto s : {hook_key, url_password, url_token, sasl_password})
    CHECK(text.find(s) == std::string::npos);
}

} // namespace

TEST_CASE("secrets never show in the sinks route, metrics, errors or logs", "[outbox][secrets]") {
  temp_dir keys;
  webhook_receiver rx;
  rx.set_down(true);
  auto hook =
    sink("hook=webhook:http://user:" + std::string{url_password} + "@" + rx.url().substr(7)
         + "?token=" + url_token + ",secret-file=" + write(keys, "key", hook_key));
  // Nothing listens there: the broker is down, which the sink reports.
  auto bus = sink("bus=kafka:127.0.0.1:1/t,sasl-mechanism=PLAIN,sasl-username=u,"
                  "security-protocol=sasl_plaintext,timeout-ms=200,sasl-password-file="
                  + write(keys, "pw", sasl_password));
  outbox_fixture fx{{hook, bus}};
  fx.finish(fx.start_ops("three", 3));
  auto until = std::chrono::steady_clock::now() + 20s;
  while ((fx.status("hook").last_error.empty() || fx.status("bus").last_error.empty())
         && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  REQUIRE_FALSE(fx.status("hook").last_error.empty());
  REQUIRE_FALSE(fx.status("bus").last_error.empty());
  http::server_config scfg;
  scfg.port = 0;
  scfg.threads = 2;
  scfg.sinks = [&] { return fx.ob->status(); };
  http::server srv{*fx.sys, fx.eng, scfg};
  auto port = srv.bind();
  REQUIRE(port);
  srv.start();
  httplib::Client c{"127.0.0.1", *port};
  auto sinks = c.Get("/api/v1/sinks");
  REQUIRE(sinks);
  REQUIRE(sinks->status == 200);
  check_clean(sinks->body);
  auto doc = boost::json::parse(sinks->body);
  auto& items = doc.at("items").as_array();
  REQUIRE(items.size() == 2);
  CHECK(items[0].at("name") == "hook");
  CHECK(items[0].at("destination").as_string() == "http://" + rx.url().substr(7) + "?***");
  CHECK(items[0].at("lag").as_int64() > 0);
  CHECK(items[0].at("held_here") == true);
  CHECK(items[1].at("kind") == "kafka");
  CHECK(items[1].at("destination") == "127.0.0.1:1/t");
  auto metrics = c.Get("/metrics");
  REQUIRE(metrics);
  check_clean(metrics->body);
  CHECK(metrics->body.find("stepwise_sink_lag_events{sink=\"hook\"}") != std::string::npos);
  CHECK(metrics->body.find("stepwise_sink_failed_total{sink=\"bus\"}") != std::string::npos);
  CHECK(metrics->body.find("stepwise_sink_lag_seconds_count{sink=\"hook\"} 0")
        != std::string::npos);
  srv.stop();
  auto* store = dynamic_cast<sink_store*>(fx.st.get());
  auto stored = store->sink_records();
  REQUIRE(stored);
  for (auto& r : *stored)
    check_clean(r.last_error);
  for (auto& w : fx.warnings->all())
    check_clean(w);
  CHECK_FALSE(fx.warnings->all().empty());
}

TEST_CASE("unreadable secret files stop the start, naming the file only", "[outbox][secrets]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  temp_dir dir;
  auto st = open_store("sqlite:" + dir.file("db"));
  REQUIRE(st);
  auto eng = engine::launch(sys, engine_config{}, outbox_workflows(), *st);
  REQUIRE(eng);
  stepwise::outbox::outbox_config oc;
  oc.sinks = {sink("hook=webhook:http://127.0.0.1:1/,secret-file=" + dir.file("none"))};
  auto ob = stepwise::outbox::outbox::start(sys, *eng, *st, oc);
  REQUIRE_FALSE(ob);
  CHECK(message_of(ob.error()).find(dir.file("none")) != std::string::npos);
  oc.sinks = {sink("a=webhook:http://h/"), sink("a=webhook:http://h/")};
  CHECK_FALSE(stepwise::outbox::outbox::start(sys, *eng, *st, oc));
  eng->shutdown();
}
