// expire_runtimes on the simulated cloud: the runtimes older than the age
// are deprovisioned by child operations, once; the young and the removed
// are left alone.
#include <set>

#include <catch2/catch.hpp>

#include "tests/infra/workflow_setup.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::infra_id;
using test::provision_input;

namespace {

operation provision(test::workflow_setup& s, const std::string& name) {
  auto in = provision_input();
  in["name"] = name;
  auto op = s.drive(s.h->start("provision_runtime", in));
  REQUIRE(op.state == op_state::succeeded);
  return op;
}

std::set<std::string> ids_in(const boost::json::value& v) {
  std::set<std::string> out;
  for (auto& x : v.as_array())
    out.insert(std::string{x.as_string()});
  return out;
}

} // namespace

TEST_CASE("expire_runtimes deprovisions the runtimes older than the age, once",
          "[infra][workflows][children]") {
  test::workflow_setup s;
  auto& h = *s.h;
  auto old1 = provision(s, "old1"), old2 = provision(s, "old2"), old3 = provision(s, "old3");
  s.clk->advance(48h);
  auto young = provision(s, "young");
  // One old runtime is gone already.
  auto by_hand = s.drive(
    h.start("deprovision_runtime", {{"provision_operation_id", old1.id}, {"name", "old1"}}));
  REQUIRE(by_hand.state == op_state::succeeded);

  auto run = s.drive(h.start("expire_runtimes", {{"age_days", 1}}));
  REQUIRE(run.state == op_state::succeeded);
  CHECK(ids_in(run.data.at("removed")) == std::set<std::string>{old2.id, old3.id});
  CHECK(run.data.at("not_removed").as_array().empty());
  CHECK_FALSE(s.drv->exists(infra_id(old2, "infrastructure")));
  CHECK_FALSE(s.drv->exists(infra_id(old3, "infrastructure")));
  CHECK(s.drv->exists(infra_id(young, "infrastructure")));
  // Its children: one deprovisioning per runtime, in the slot of its
  // provisioning operation.
  list_filter f;
  f.parent = run.id;
  auto children = h.eng.list(f);
  REQUIRE(children);
  REQUIRE(children->items.size() == 2);
  for (auto& child : children->items) {
    CHECK(child.workflow == "deprovision_runtime");
    CHECK(child.state == op_state::succeeded);
    CHECK(child.parent_id == run.id);
  }

  // Again: nothing is left to remove, nothing is deleted twice.
  auto again = s.drive(h.start("expire_runtimes", {{"age_days", 1}}));
  REQUIRE(again.state == op_state::succeeded);
  CHECK(again.data.at("expired").as_array().empty());
  CHECK(again.data.at("removed").as_array().empty());
  f.workflow = "deprovision_runtime";
  f.parent.clear();
  CHECK(h.eng.list(f)->items.size() == 3);
}

TEST_CASE("expire_runtimes takes at most max_at_once runtimes a run, oldest first",
          "[infra][workflows][children]") {
  test::workflow_setup s;
  auto& h = *s.h;
  auto first = provision(s, "a");
  s.clk->advance(1h);
  provision(s, "b");
  s.clk->advance(48h);
  auto run = s.drive(h.start("expire_runtimes", {{"age_days", 1}, {"max_at_once", 1}}));
  REQUIRE(run.state == op_state::succeeded);
  CHECK(ids_in(run.data.at("removed")) == std::set<std::string>{first.id});
  auto next = s.drive(h.start("expire_runtimes", {{"age_days", 1}, {"max_at_once", 1}}));
  CHECK(next.data.at("removed").as_array().size() == 1);
  CHECK_FALSE(ids_in(next.data.at("removed")).count(first.id));
}

TEST_CASE("expire_runtimes refuses a bad input, naming the field", "[infra][workflows]") {
  test::workflow_setup s;
  auto bad = s.drive(s.h->start("expire_runtimes", {{"age_days", -1}}));
  CHECK(bad.state == op_state::failed);
  CHECK(bad.steps[0].last_error.find("age_days") != std::string::npos);
  auto too_many = s.drive(s.h->start("expire_runtimes", {{"age_days", 1}, {"max_at_once", 0}}));
  CHECK(too_many.state == op_state::failed);
  CHECK(too_many.steps[0].last_error.find("max_at_once") != std::string::npos);
}
