// Workflows defined as data on a store several processes share: a version
// stored by one process reaches the others at once (stepwise_workflows),
// versions stay distinct, and a delete reaches them too.
#include <chrono>

#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "tests/actors/pg_engines.hpp"
#include "tests/eventually.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

engine launch_on(caf::actor_system& sys, store_ptr st) {
  engine_config ec;
  ec.lease_ttl = std::chrono::duration_cast<duration>(360s);
  auto eng = engine::launch(sys, ec, go_then_done(), std::move(st));
  if (!eng)
    FAIL("launch failed: " << message_of(eng.error()));
  return std::move(*eng);
}

boost::json::object definition(const std::string& queue) {
  return boost::json::parse(R"({"steps":[{"name":"t","kind":"task","queue":")" + queue
                            + R"("}],"limit":2})")
    .as_object();
}

} // namespace

TEST_CASE("definitions: one stored by a process reaches the others at once",
          "[actors][pg][lease][definitions]") {
  pg_engines pg;
  if (!pg)
    return;
  auto& sys = pg.system();
  auto a = launch_on(sys, pg.schema().open());
  auto b = launch_on(sys, pg.schema().open());
  auto v1 = a.define_workflow("order", definition("q1"));
  REQUIRE(v1);
  CHECK(v1->created);
  CHECK(v1->wf->version() == 1);
  auto learned = eventually([&] { return b.workflows().find("order") != nullptr; }, 10s);
  INFO("B heard " << b.stats().notifications << " notifications");
  REQUIRE(learned);
  // B stores the same definition: nothing new; another: version 2, for A too.
  auto again = b.define_workflow("order", definition("q1"));
  REQUIRE(again);
  CHECK_FALSE(again->created);
  CHECK(again->wf->version() == 1);
  auto v2 = b.define_workflow("order", definition("q2"));
  REQUIRE(v2);
  CHECK(v2->wf->version() == 2);
  REQUIRE(eventually([&] { return a.workflows().find("order", 2) != nullptr; }, 10s));
  // Its limit took part in admission on A as well: a start there is queued
  // behind none, and runs.
  auto started = a.start({"order", std::nullopt, {}, {}, std::nullopt});
  REQUIRE(started);
  CHECK(started->op.workflow_version == 2);
  auto refused = b.delete_workflow("order");
  REQUIRE_FALSE(refused);
  CHECK(code_of(refused.error()) == errc::invalid_state);
  REQUIRE(a.cancel(started->op.id));
  REQUIRE(eventually([&] {
    auto op = a.get(started->op.id);
    return op && is_terminal(op->state);
  }));
  auto gone = b.delete_workflow("order");
  REQUIRE(gone);
  CHECK(*gone == 2);
  REQUIRE(eventually([&] { return a.workflows().find("order") == nullptr; }, 10s));
}
