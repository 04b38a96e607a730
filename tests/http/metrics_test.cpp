#include <map>
#include <cstring>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "http/prometheus.hpp"
#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;

TEST_CASE("GET /metrics is well-formed Prometheus text", "[http][metrics]") {
  http_fixture fx;
  auto id = fx.start_op("quick");
  REQUIRE(fx.finish(id) == "succeeded");
  fx.get("/api/v1/operations/nope");
  auto r = fx.get("/metrics");
  REQUIRE(r.status == 200);
  CHECK(r.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8");
  std::istringstream in(r.body);
  std::string line;
  std::map<std::string, std::string> types;
  std::map<std::string, double> samples;
  auto good_name = [](const std::string& n) {
    if (n.rfind("stepwise_", 0) != 0 && n.rfind("process_", 0) != 0)
      return false;
    return n.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos;
  };
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0)
      continue;
    if (line.rfind("# TYPE ", 0) == 0) {
      auto rest = line.substr(7);
      auto sp = rest.find(' ');
      auto name = rest.substr(0, sp);
      auto type = rest.substr(sp + 1);
      CHECK(good_name(name));
      CHECK(types.count(name) == 0);
      types[name] = type;
      if (type == "counter")
        CHECK(name.size() > 6);
      if (type == "counter")
        CHECK(name.compare(name.size() - 6, 6, "_total") == 0);
      continue;
    }
    INFO(line);
    // name{labels} value, or name value
    auto space = line.rfind(' ');
    REQUIRE(space != std::string::npos);
    auto brace = line.find('{');
    auto name = line.substr(0, std::min(brace, space));
    auto labels = brace < space ? line.substr(brace, space - brace) : std::string();
    CHECK(good_name(name));
    CHECK((labels.empty() || labels.back() == '}'));
    auto family = name;
    for (auto suffix : {"_bucket", "_sum", "_count"})
      if (types.count(family) == 0 && family.size() > std::strlen(suffix)
          && family.compare(family.size() - std::strlen(suffix), std::strlen(suffix), suffix) == 0)
        family = family.substr(0, family.size() - std::strlen(suffix));
    CHECK(types.count(family) == 1);
    samples[name + labels] = std::stod(line.substr(space + 1));
  }
  for (auto fam :
       {"stepwise_operations_started_total", "stepwise_operations_finished_total",
        "stepwise_operations_active", "stepwise_steps_started_total",
        "stepwise_steps_succeeded_total", "stepwise_steps_failed_total",
        "stepwise_steps_retried_total", "stepwise_step_duration_seconds", "stepwise_timers_pending",
        "stepwise_attempts_running", "stepwise_store_commit_duration_seconds",
        "stepwise_store_commit_batch_size", "stepwise_http_requests_total",
        "stepwise_http_request_duration_seconds", "stepwise_commit_backlog"})
    CHECK(types.count(fam) == 1);
  CHECK(types["stepwise_step_duration_seconds"] == "histogram");
  CHECK(samples["stepwise_operations_started_total"] >= 1);
  CHECK(samples["stepwise_operations_finished_total{state=\"succeeded\"}"] >= 1);
  CHECK(samples["stepwise_http_requests_total{method=\"POST\",route=\"/api/v1/"
                "operations\",status=\"201\"}"]
        == 1);
  CHECK(samples["stepwise_http_requests_total{method=\"GET\",route=\"/api/v1/"
                "operations/{id}\",status=\"404\"}"]
        == 1);
  CHECK(samples["stepwise_step_duration_seconds_bucket{le=\"+Inf\"}"]
        == samples["stepwise_step_duration_seconds_count"]);
}

TEST_CASE("unknown paths share one metrics label", "[http][metrics]") {
  http_fixture fx;
  for (int i = 0; i < 5; ++i)
    fx.get("/random/" + std::to_string(i));
  CHECK(fx.srv->requests().count("GET", "unmatched", 404) == 5);
}

TEST_CASE("prometheus histograms are cumulative", "[http][metrics]") {
  stepwise::histogram<2> h{{1.0, 2.0}};
  h.observe(0.5);
  h.observe(1.5);
  h.observe(9);
  http::prometheus_writer w;
  w.family("x_seconds", "histogram", "test");
  w.histogram("x_seconds", {{"a", "q\"\\"}}, h);
  auto& t = w.text();
  CHECK(t.find("x_seconds_bucket{a=\"q\\\"\\\\\",le=\"1\"} 1\n") != std::string::npos);
  CHECK(t.find("le=\"2\"} 2\n") != std::string::npos);
  CHECK(t.find("le=\"+Inf\"} 3\n") != std::string::npos);
  CHECK(t.find("x_seconds_sum{a=\"q\\\"\\\\\"} 11\n") != std::string::npos);
  CHECK(t.find("x_seconds_count{a=\"q\\\"\\\\\"} 3\n") != std::string::npos);
}
