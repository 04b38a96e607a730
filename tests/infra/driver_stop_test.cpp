// A step's stop request reaches the driver call it made: a call under way
// to an external driver ends (its transfer is canceled, its connection
// freed) when the step times out or its operation is canceled.
#include <future>

#include <catch2/catch.hpp>

#include "infra/ignition_driver.hpp"
#include "tests/actors/harness.hpp"
#include "tests/infra/ignition_stub.hpp"
#include "workflows/infra_steps.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::ignition_stub;

namespace {

std::shared_ptr<infra::ignition_driver> holding_driver(ignition_stub& stub) {
  stub.answer(202, R"({"infrastructureId":"i1","requestId":"r1"})");
  stub.hold();
  infra::ignition_driver_config cfg;
  cfg.base_url = stub.url();
  cfg.call_timeout = 60s;
  auto d = infra::ignition_driver::make(cfg);
  REQUIRE(d);
  return *d;
}

infra::create_request a_create() {
  infra::create_request req;
  req.template_text = "t";
  req.template_type = "TOSCA";
  req.location = {"dc1", "", {}};
  return req;
}

/// A workflow whose one step creates through `drv` and gives up after 2 s.
registry one_create(std::shared_ptr<infra::ignition_driver> drv) {
  workflow wf("create", 1);
  wf.step(
    10, make_async_step("create", [drv](async_call call) {
          workflows::create_once(*drv, call, "created", {"t", "TOSCA", "rt1", {}, {"dc1", "", {}}});
        }).with_timeout(2s));
  return test::one(std::move(wf));
}

} // namespace

TEST_CASE("a stop request ends a driver call under way", "[http][infra][client]") {
  ignition_stub stub;
  auto d = holding_driver(stub);
  stop_source stop;
  std::promise<infra::result<infra::accepted>> answer;
  d->create(
    a_create(), [&](infra::result<infra::accepted> r) { answer.set_value(std::move(r)); },
    stop.token());
  REQUIRE(stub.wait_active(1, 10s));
  CHECK(d->stats().in_flight == 1);
  stop.request_stop("the step timed out");
  auto got = answer.get_future();
  REQUIRE(got.wait_for(10s) == std::future_status::ready);
  auto r = got.get();
  REQUIRE(std::holds_alternative<infra::error>(r));
  CHECK(std::get<infra::error>(r).kind == infra::error_kind::temporary);
  CHECK_THAT(std::get<infra::error>(r).message, Catch::Contains("canceled"));
  auto st = d->stats();
  CHECK(st.in_flight == 0);
  CHECK(st.failed == 1);
  stub.release();
}

TEST_CASE("a step that times out or is canceled stops its driver call", "[infra][workflows]") {
  ignition_stub stub;
  auto d = holding_driver(stub);
  test::harness h{one_create(d)};
  auto id = h.start("create");
  REQUIRE(stub.wait_active(1, 10s));
  REQUIRE(d->stats().in_flight == 1);
  SECTION("timeout") {
    h.clk->advance(2s);
    REQUIRE(h.await(id, event_type::step_timed_out));
  }
  SECTION("cancel") {
    REQUIRE(h.eng.cancel(id));
    REQUIRE(h.await(id, event_type::operation_canceled));
  }
  // The transfer ended although the driver never answered.
  CHECK(h.eventually([&] { return d->stats().in_flight == 0 && d->stats().failed == 1; }));
  stub.release();
}
