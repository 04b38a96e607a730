// Version pinning over HTTP: an operation whose workflow version is gone
// after a restart shows as failed, with an error naming it.
#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

/// The tests' workflows, but `sleepy` only as version 2.
registry without_sleepy_v1(caf::actor_system&) {
  registry reg;
  for (auto& wf : test_registry().all())
    if (wf->name() != "sleepy")
      REQUIRE(reg.add(*wf));
  REQUIRE(reg.add(
    workflow("sleepy", 2).step(1, make_step("first", [](step_context&) { return done(); }))));
  return reg;
}

} // namespace

TEST_CASE("GET shows an operation whose version is gone as failed, naming it", "[http][versions]") {
  http_fixture fx;
  auto id = fx.start_op("sleepy");
  REQUIRE(fx.await_event(id, "operation_waiting"));
  fx.stop();
  fx.make_registry = without_sleepy_v1;
  fx.start();
  auto expected = "unknown workflow 'sleepy' version 1: not registered in this process "
                  "(registered: 2)";
  CHECK(fx.finish(id) == "failed");
  auto got = fx.get(std::string(ops) + "/" + id);
  REQUIRE(got.status == 200);
  CHECK(got.json.at("state") == "failed");
  CHECK(got.json.at("version") == 1);
  CHECK(got.json.at("error") == expected);
  auto& steps = got.json.at("steps").as_array();
  CHECK(steps.at(1).at("name") == "nap");
  CHECK(steps.at(1).at("state") == "failed");
  // The event log says so too, once.
  auto evs = fx.get("/api/v1/events?limit=1000&after=0");
  REQUIRE(evs.status == 200);
  int failed = 0;
  for (auto& e : evs.json.at("items").as_array())
    if (e.at("operation_id") == id.c_str() && e.at("type") == "operation_failed") {
      ++failed;
      CHECK(e.at("error") == expected);
    }
  CHECK(failed == 1);
  // A retry cannot run it: 409, saying why.
  auto retry = fx.post(std::string(ops) + "/" + id + "/retry", "{}");
  CHECK(retry.status == 409);
  CHECK(retry.error_code() == "invalid_state");
  CHECK(std::string(retry.json.at("error").at("message").as_string()).find(expected)
        != std::string::npos);
  // New operations start on the version there is.
  auto fresh = fx.post(ops, R"({"workflow":"sleepy","input":{}})");
  REQUIRE(fresh.status == 201);
  CHECK(fresh.json.at("version") == 2);
}
