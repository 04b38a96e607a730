// Child operations: a step starts them, and a wait step waits for all, any
// or N of them holding no actor; a failed child fails that step unless it
// accepts failures.
#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/actors/children_fixtures.hpp"
#include "tests/actors/harness.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::ok;
using namespace stepwise::test;

TEST_CASE("a step starts children; the wait for all of them ends once every one has ended",
          "[actors][children]") {
  harness h{family(await_children("join", "fan"))};
  auto id = h.start("parent");
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  auto kids = await_children_of(h, id, 3);
  for (auto& [slot, c] : kids) {
    CHECK(c.parent_id == id);
    CHECK(c.workflow == "child");
  }
  // Three children and their parent wait, none holding an actor.
  CHECK(parent_sleeps(h, 4));
  auto parent = h.eng.get(id);
  REQUIRE(parent);
  auto& ids = parent->data.at("children").at("fan").as_object();
  CHECK(ids.size() == 3);
  CHECK(ids.at("0").as_string() == kids.at("fan/0").id);
  go(h, kids.at("fan/0"));
  go(h, kids.at("fan/1"));
  REQUIRE(h.await(kids.at("fan/1").id, event_type::operation_succeeded));
  REQUIRE(h.await(kids.at("fan/0").id, event_type::operation_succeeded));
  auto still = h.eng.get(id);
  REQUIRE(still);
  CHECK(still->state == op_state::waiting);
  go(h, kids.at("fan/2"));
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  auto& res = results_of(op, "fan");
  REQUIRE(res.size() == 3);
  for (auto& kv : res) {
    auto& r = kv.value().as_object();
    CHECK(r.at("state").as_string() == "succeeded");
    CHECK(r.at("data").as_object().contains("go"));
    CHECK(r.at("error").as_string() == "");
  }
  CHECK(res.at("2").at("id").as_string() == kids.at("fan/2").id);
  // Who did what: a child's start names its parent.
  auto log = h.eng.events(0, 100'000);
  REQUIRE(log);
  for (auto& e : *log)
    if (e.type == event_type::operation_created && e.operation_id != id)
      CHECK(e.by == "parent:" + id);
}

TEST_CASE("a wait for any child ends with the first one", "[actors][children]") {
  harness h{family(await_children("join", "fan").needing_any())};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 3);
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  go(h, kids.at("fan/1"));
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  auto& res = results_of(op, "fan");
  CHECK(res.at("1").at("state").as_string() == "succeeded");
  CHECK(res.at("0").at("state").as_string() == "waiting");
  // The others run on.
  auto other = h.eng.get(kids.at("fan/0").id);
  REQUIRE(other);
  CHECK(other->state == op_state::waiting);
}

TEST_CASE("a wait for N of M children ends with the Nth", "[actors][children]") {
  harness h{family(await_children("join", "fan").needing(2), 4)};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 4);
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  go(h, kids.at("fan/3"));
  REQUIRE(h.await(kids.at("fan/3").id, event_type::operation_succeeded));
  auto one_in = h.eng.get(id);
  REQUIRE(one_in);
  CHECK(one_in->state == op_state::waiting);
  go(h, kids.at("fan/0"));
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(results_of(op, "fan").size() == 4);
}

TEST_CASE("a wait for more children than the step started fails at once", "[actors][children]") {
  harness h{family(await_children("join", "fan").needing(5))};
  auto id = h.start("parent");
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("waits for 5 children but step 'fan' has 3") != std::string::npos);
}

TEST_CASE("a failed child fails the waiting step", "[actors][children]") {
  harness h{family(await_children("join", "fan"))};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 3);
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  go(h, kids.at("fan/1"), true);
  // It fails as soon as the failure is seen, not once all have ended.
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.steps[1].state == step_state::failed);
  CHECK(op.error.find("child '1' of step 'fan'") != std::string::npos);
  CHECK(op.error.find("told to fail") != std::string::npos);
  CHECK(results_of(op, "fan").at("1").at("state").as_string() == "failed");
}

TEST_CASE("a wait accepting failures counts a failed child as ended", "[actors][children]") {
  harness h{family(await_children("join", "fan").accepting_failures())};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 3);
  go(h, kids.at("fan/0"), true);
  go(h, kids.at("fan/1"));
  go(h, kids.at("fan/2"), true);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  auto& res = results_of(op, "fan");
  CHECK(res.at("0").at("state").as_string() == "failed");
  CHECK(res.at("0").at("error").as_string().find("told to fail") != std::string::npos);
  CHECK(res.at("1").at("state").as_string() == "succeeded");
}

TEST_CASE("a wait for every child of the operation takes the children of all its steps",
          "[actors][children]") {
  registry reg;
  REQUIRE(reg.add(waiting_child()));
  REQUIRE(reg.add(std::move(workflow("parent", 1)
                              .step(1, fan_out("a", 1))
                              .step(2, fan_out("b", 2))
                              .step(3, await_children("join")))));
  harness h{std::move(reg)};
  auto id = h.start("parent");
  auto kids = await_children_of(h, id, 3);
  for (auto& kv : kids)
    go(h, kv.second);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(results_of(op, "a").size() == 1);
  CHECK(results_of(op, "b").size() == 2);
}

TEST_CASE("a children wait times out on the engine's clock", "[actors][children]") {
  harness h{family(await_children("join", "fan").with_wait_timeout(1min))};
  auto id = h.start("parent");
  REQUIRE(h.await(id, event_type::operation_waiting, "join"));
  await_children_of(h, id, 3);
  h.clk->advance(1min);
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  CHECK(op.steps[1].last_error.find("no end of enough children within 60000 ms")
        != std::string::npos);
}
