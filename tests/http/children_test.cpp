// Child operations through the API: an operation shows how many children
// it has in each state, and its children name it as their parent.
#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

/// The test workflows and `family`: its first step starts two `quick`
/// children and one `sleepy` (it sleeps an hour), its second waits for any
/// two of them.
registry with_family(caf::actor_system&) {
  auto reg = test_registry();
  REQUIRE(reg.add(std::move(workflow("family", 1)
                              .step(1, make_step("fan",
                                                 [](step_context& ctx) {
                                                   ctx.start_child("quick", {});
                                                   ctx.start_child("quick", {});
                                                   ctx.start_child("sleepy", {}, "slow");
                                                   return done();
                                                 }))
                              .step(2, await_children("join", "fan").needing(2)))));
  return reg;
}

} // namespace

TEST_CASE("an operation shows its children's counts by state", "[http][operations][children]") {
  http_fixture fx{http_fixture::default_config(), nullptr, with_family};
  auto id = fx.start_op("family");
  CHECK(fx.finish(id) == "succeeded");
  auto got = fx.get(ops + "/" + id);
  REQUIRE(got.status == 200);
  CHECK(got.json.at("children")
        == boost::json::object{{"total", 3}, {"succeeded", 2}, {"waiting", 1}});
  CHECK(got.json.at("data").at("children").at("fan").as_object().size() == 3);
  auto slow = std::string(got.json.at("data").at("children").at("fan").at("slow").as_string());
  auto child = fx.get(ops + "/" + slow);
  REQUIRE(child.status == 200);
  CHECK(child.json.at("parent_id").as_string() == id);
  CHECK(child.json.at("state") == "waiting");
  CHECK(child.json.at("children") == boost::json::object{{"total", 0}});
  // A list does not count every item's children.
  auto listed = fx.get(ops + "?parent=" + id);
  REQUIRE(listed.status == 200);
  REQUIRE(listed.json.at("items").as_array().size() == 3);
  CHECK_FALSE(listed.json.at("items").as_array().at(0).as_object().contains("children"));
}
