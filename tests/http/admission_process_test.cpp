// Keys and limits on the real binary: `serve --limit` makes operations
// beyond the limit queue, a second provisioning of one runtime waits for
// the first, and a queued operation shows `state: pending` and what it
// waits for in GET, in `stepwise ops show` and in /metrics.
#include <thread>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"

using namespace stepwise::test;
using steady = std::chrono::steady_clock;

namespace {

/// Returns the sample `name{workflow="wf"}` of a /metrics text, or -1.
double sample(const std::string& metrics, const std::string& name, const std::string& wf) {
  auto head = name + "{workflow=\"" + wf + "\"} ";
  auto at = metrics.find(head);
  if (at == std::string::npos || (at > 0 && metrics[at - 1] != '\n'))
    return -1;
  return std::stod(metrics.substr(at + head.size()));
}

struct limited_server {
  temp_dir dir;
  child proc;
  int port = 0;
  std::string url;
  std::unique_ptr<httplib::Client> http;

  explicit limited_server(std::vector<std::string> more)
    : proc([&] {
        std::vector<std::string> args{stepwise_binary(), "serve",
                                      "--listen",        "127.0.0.1:0",
                                      "--store",         "sqlite:" + dir.path + "/sw.db"};
        args.insert(args.end(), more.begin(), more.end());
        return args;
      }()) {
    port = proc.await_port(std::chrono::seconds(20));
    INFO(proc.err);
    REQUIRE(port > 0);
    url = "http://127.0.0.1:" + std::to_string(port);
    http = std::make_unique<httplib::Client>("127.0.0.1", port);
    http->set_read_timeout(30, 0);
  }

  reply get(const std::string& target) {
    return to_reply(http->Get(target.c_str()));
  }

  std::string start(const std::string& workflow, const std::string& input) {
    auto r = to_reply(http->Post(ops.c_str(),
                                 R"({"workflow":")" + workflow + R"(","input":)" + input + "}",
                                 "application/json"));
    INFO(r.body);
    REQUIRE(r.status == 201);
    return r.json.at("id").as_string().c_str();
  }

  /// Waits (bounded) until `pred` holds for GET /metrics.
  template <class Pred>
  bool metrics_until(Pred pred) {
    auto until = steady::now() + std::chrono::seconds(20);
    while (steady::now() < until) {
      auto r = get("/metrics");
      if (r.status == 200 && pred(r.body))
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
};

} // namespace

TEST_CASE("serve --limit: the operations beyond the limit queue, pending, and say why",
          "[http][process][admission]") {
  // demo: about 3 s each (a 2 s durable sleep, retries).
  limited_server srv({"--limit", "demo=1"});
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i)
    ids.push_back(srv.start("demo", "{}"));
  REQUIRE(srv.metrics_until([](const std::string& m) {
    return sample(m, "stepwise_workflow_operations_queued", "demo") == 2
           && sample(m, "stepwise_workflow_operations_running", "demo") == 1;
  }));
  for (int i : {1, 2}) {
    auto r = srv.get(ops + "/" + ids[i]);
    INFO(r.body);
    REQUIRE(r.status == 200);
    CHECK(r.json.at("state") == "pending");
    CHECK(r.json.at("blocked_by") == "limit:demo");
  }
  CHECK(srv.get(ops + "/" + ids[0]).json.at("blocked_by").is_null());
  auto shown = run_cli("ops show " + ids[2] + " --url " + srv.url);
  INFO(shown);
  CHECK(shown.find("pending") != std::string::npos);
  CHECK(shown.find("blocked by") != std::string::npos);
  CHECK(shown.find("limit:demo") != std::string::npos);
  // The first ends: the next one in line runs, the last still waits.
  auto until = steady::now() + std::chrono::seconds(30);
  while (srv.get(ops + "/" + ids[0]).json.at("state") != "succeeded" && steady::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(srv.metrics_until([](const std::string& m) {
    return sample(m, "stepwise_workflow_operations_queued", "demo") == 1
           && sample(m, "stepwise_workflow_operations_running", "demo") == 1;
  }));
  // Admitted by the round the metrics show; started by its actor a moment
  // after.
  auto second = srv.get(ops + "/" + ids[1]);
  until = steady::now() + std::chrono::seconds(30);
  while (second.json.at("state") == "pending" && steady::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    second = srv.get(ops + "/" + ids[1]);
  }
  CHECK(second.json.at("state") != "pending");
  CHECK(second.json.at("blocked_by").is_null());
  CHECK(srv.get(ops + "/" + ids[2]).json.at("blocked_by") == "limit:demo");
}

TEST_CASE("a second provisioning of one runtime waits for the first, over HTTP",
          "[http][process][admission]") {
  // Each simulated cloud task takes 3 s: the first provisioning still runs
  // while the test looks at the second.
  limited_server srv({"--sim-latency-ms", "3000"});
  auto input = R"({"name":"rt1","template":"outputs.url: http://rt1","template_type":"TOSCA",)"
               R"("deployment_location":{"name":"dc1"}})";
  auto first = srv.start("provision_runtime", input);
  auto second = srv.start("provision_runtime", input);
  auto other = srv.start("provision_runtime",
                         R"({"name":"rt2","template":"outputs.url: http://rt2",)"
                         R"("template_type":"TOSCA","deployment_location":{"name":"dc1"}})");
  REQUIRE(srv.metrics_until([](const std::string& m) {
    return sample(m, "stepwise_workflow_operations_queued", "provision_runtime") == 1
           && sample(m, "stepwise_workflow_operations_running", "provision_runtime") == 2;
  }));
  auto r = srv.get(ops + "/" + second);
  INFO(r.body);
  CHECK(r.json.at("state") == "pending");
  CHECK(r.json.at("key") == "runtime:rt1");
  CHECK(r.json.at("blocked_by") == first.c_str());
  CHECK(srv.get(ops + "/" + other).json.at("blocked_by").is_null());
  auto shown = run_cli("ops show " + second + " --url " + srv.url);
  INFO(shown);
  CHECK(shown.find("pending") != std::string::npos);
  CHECK(shown.find("runtime:rt1") != std::string::npos);
  CHECK(shown.find(first) != std::string::npos);
  // The event log says it too.
  auto events = srv.get("/api/v1/events?limit=1000");
  bool queued = false;
  for (auto& e : events.json.at("items").as_array())
    queued = queued
             || (e.at("operation_id") == second.c_str() && e.at("type") == "operation_queued"
                 && e.at("blocked_by") == first.c_str());
  CHECK(queued);
}
