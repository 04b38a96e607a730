// Pause, resume and retry over HTTP: the answers the design names
// (202 / 409 / 404) with messages that say why.
#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

std::string state_of(const reply& r) {
  return r.json.at("state").as_string().c_str();
}

} // namespace

TEST_CASE("pause and resume over HTTP", "[http][pause]") {
  http_fixture fx;
  auto id = fx.start_op("sleepy");
  REQUIRE(fx.await_event(id, "operation_waiting"));
  auto paused = fx.post(ops + "/" + id + "/pause", "");
  REQUIRE(paused.status == 202);
  CHECK(state_of(paused) == "paused");
  REQUIRE(fx.await_event(id, "operation_paused"));
  CHECK(state_of(fx.get(ops + "/" + id)) == "paused");
  auto again = fx.post(ops + "/" + id + "/pause", "{}");
  CHECK(again.status == 409);
  CHECK(again.error_code() == "invalid_state");
  CHECK(again.body.find("is paused") != std::string::npos);
  auto resumed = fx.post(ops + "/" + id + "/resume", "");
  REQUIRE(resumed.status == 202);
  REQUIRE(fx.await_event(id, "operation_resumed"));
  // The sleep starts again and the operation waits once more.
  CHECK(state_of(fx.get(ops + "/" + id)) == "waiting");
  CHECK(fx.post(ops + "/" + id + "/resume", "").status == 409);
  CHECK(fx.post(ops + "/missing/pause", "").status == 404);
  CHECK(fx.post(ops + "/missing/resume", "").status == 404);
  CHECK(fx.post(ops + "/" + id + "/pause", R"({"why":"x"})").status == 400);
}

TEST_CASE("retry of a succeeded operation without incomplete steps is 409", "[http][retry]") {
  http_fixture fx;
  auto id = fx.start_op("quick");
  REQUIRE(fx.finish(id) == "succeeded");
  auto r = fx.post(ops + "/" + id + "/retry", "");
  CHECK(r.status == 409);
  CHECK(r.body.find("no incomplete steps") != std::string::npos);
}
