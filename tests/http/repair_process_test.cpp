// `stepwise ops retry` and `stepwise ops skip` (the real binaries) on a
// real provisioning: a provisioning that failed on its input is fixed by
// a retry with an input patch, a retry --from-step runs the named step
// and those after it, a skip moves on; mistakes are said naming the field.
#include <thread>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"

using namespace stepwise::test;
using steady = std::chrono::steady_clock;

namespace {

bool cli_says(const std::string& out, const std::string& what) {
  return out.find(what) != std::string::npos;
}

struct repair_server {
  temp_dir dir;
  child proc{{stepwise_binary(), "serve", "--listen", "127.0.0.1:0", "--store",
              "sqlite:" + dir.path + "/sw.db"}};
  int port = proc.await_port(std::chrono::seconds(20));
  std::string url = "http://127.0.0.1:" + std::to_string(port);
  httplib::Client http{"127.0.0.1", port};

  reply get(const std::string& target) {
    return to_reply(http.Get(target.c_str()));
  }

  std::string cli(const std::string& args) {
    return run_cli("ops " + args + " --url " + url);
  }

  /// Waits (bounded) until the operation is in `state`.
  bool reaches(const std::string& id, const char* state) {
    auto until = steady::now() + std::chrono::seconds(30);
    while (steady::now() < until) {
      auto r = get(ops + "/" + id);
      if (r.status == 200 && r.json.at("state") == state)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  /// How many `step_started` events step `step` of `id` has.
  int starts(const std::string& id, const std::string& step) {
    int n = 0;
    auto r = get("/api/v1/events?limit=1000");
    for (auto& e : r.json.at("items").as_array())
      n += e.at("operation_id") == id.c_str() && e.at("type") == "step_started"
           && e.as_object().if_contains("step") && e.at("step") == step.c_str();
    return n;
  }
};

std::string started_op_id(const std::string& out) {
  auto at = out.find("started ");
  REQUIRE(at != std::string::npos);
  return out.substr(at + 8, out.find(' ', at + 8) - at - 8);
}

} // namespace

TEST_CASE("stepwise ops retry fixes a failed provisioning with an input patch, and runs again "
          "from a step",
          "[http][process][repair][cli]") {
  repair_server srv;
  INFO(srv.proc.err);
  REQUIRE(srv.port > 0);
  // No template: the provisioning fails at its first step.
  auto out = srv.cli(R"(start provision_runtime --input '{"name":"rt1","template_type":"TOSCA",)"
                     R"("deployment_location":{"name":"dc1"}}')");
  INFO(out);
  auto id = started_op_id(out);
  REQUIRE(srv.reaches(id, "failed"));
  CHECK(cli_says(srv.cli("retry " + id + " --input '[1]'"), "--input must be a JSON object"));
  CHECK(cli_says(srv.cli("retry " + id + " --from-step create_db"),
                 "error: 400 invalid_argument: from_step: workflow 'provision_runtime'"));
  auto fixed = srv.cli("retry " + id + R"( --input '{"template":"outputs.url: http://rt1"}')");
  INFO(fixed);
  CHECK(cli_says(fixed, "retry requested for " + id));
  REQUIRE(srv.reaches(id, "succeeded"));
  CHECK(srv.starts(id, "validate") == 2);
  CHECK(srv.starts(id, "create_infrastructure") == 1);

  // Again from its last step: that one runs, nothing before it.
  CHECK(cli_says(srv.cli("retry " + id), "error: 409 invalid_state"));
  auto again = srv.cli("retry " + id + " --from-step record_runtime");
  INFO(again);
  CHECK(cli_says(again, "retry requested for " + id));
  REQUIRE(srv.reaches(id, "succeeded"));
  CHECK(srv.starts(id, "record_runtime") == 2);
  CHECK(srv.starts(id, "create_infrastructure") == 1);
  CHECK(srv.starts(id, "validate") == 2);
}

TEST_CASE("stepwise ops skip records the step skipped and goes on",
          "[http][process][repair][cli]") {
  repair_server srv;
  INFO(srv.proc.err);
  REQUIRE(srv.port > 0);
  auto out = srv.cli(R"(start provision_runtime --input '{"name":"rt2","template":"outputs.url: )"
                     R"(http://rt2","template_type":"TOSCA","deployment_location":{"name":"dc1"},)"
                     R"("properties":7}')");
  INFO(out);
  auto id = started_op_id(out);
  REQUIRE(srv.reaches(id, "failed"));
  CHECK(cli_says(srv.cli("skip " + id + " validate"), "--reason is required"));
  CHECK(cli_says(srv.cli("skip " + id + " nope --reason x"),
                 "error: 400 invalid_argument: step: workflow 'provision_runtime'"));
  CHECK(cli_says(srv.cli("skip " + id + " record_runtime --reason x"), "error: 409 invalid_state"));
  auto skipped = srv.cli("skip " + id + " validate --reason 'checked by hand'");
  INFO(skipped);
  CHECK(cli_says(skipped, "skipped validate of " + id));
  REQUIRE(srv.reaches(id, "succeeded"));
  auto op = srv.get(ops + "/" + id);
  CHECK(op.json.at("steps").as_array().at(0).at("state") == "skipped");
  CHECK(srv.starts(id, "validate") == 1);
}
