// The backend-independent store suite, part 5: admission rounds (their
// writes, their events, and that updates leave the admission columns, but
// for a retry out of an end state).
#include <catch2/catch.hpp>

#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

operation queued(const std::string& id, int64_t created_us, const std::string& key) {
  auto op = make_op(id, created_us, "provision_runtime");
  op.admission = admission::queued;
  op.key = key;
  return op;
}

} // namespace

TEST_CASE("an admission round writes admissions, blockers and queued events",
          "[storage][admission]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto plain = make_op("op-plain", 1);
      commit_ok(*st, {create(queued("op-a1", 10, "a")), create(queued("op-a2", 20, "a")),
                      create(queued("op-b1", 30, "b")), create(queued("op-c1", 40, "c")),
                      create(plain)});
      auto before = st->last_seq();
      REQUIRE(before);
      auto round = st->admit({{"provision_runtime", 2}}, at(50));
      REQUIRE(round);
      CHECK(round->startable == std::vector<std::string>{"op-a1", "op-b1"});
      REQUIRE(round->events.size() == 2);
      CHECK(round->events[0].operation_id == "op-a2");
      CHECK(round->events[0].seq == *before + 1);
      CHECK(round->events[1].operation_id == "op-c1");
      CHECK(round->events[1].extra.at("blocked_by") == "limit:provision_runtime");
      auto logged = st->events_after(*before, 10);
      REQUIRE(logged);
      REQUIRE(logged->size() == 2);
      CHECK((*logged)[0].type == event_type::operation_queued);
      CHECK((*logged)[0].extra.at("blocked_by") == "op-a1");
      CHECK(load_ok(*st, "op-a1").admission == admission::admitted);
      CHECK(load_ok(*st, "op-a2").blocked_by == "op-a1");
      CHECK(load_ok(*st, "op-a2").key == "a");
      CHECK(load_ok(*st, "op-plain").admission == admission::none);
      // A second round changes nothing and says nothing new.
      auto again = st->admit({{"provision_runtime", 2}}, at(60));
      REQUIRE(again);
      CHECK(again->updates.empty());
      CHECK(again->events.empty());
      CHECK(again->startable == std::vector<std::string>{"op-a1", "op-b1"});
      // An engine's update of op-a1 (its copy still says queued) leaves
      // the round's columns alone; once it ends, op-a2 is admitted.
      auto a1 = load_ok(*st, "op-a1");
      a1.admission = admission::queued;
      a1.blocked_by = "stale";
      commit_ok(*st, {update(next(a1, op_state::succeeded, 70))});
      CHECK(load_ok(*st, "op-a1").admission == admission::admitted);
      auto third = st->admit({{"provision_runtime", 2}}, at(80));
      REQUIRE(third);
      CHECK(third->startable == std::vector<std::string>{"op-a2", "op-b1"});
      CHECK(third->counts["provision_runtime"].running == 2);
      CHECK(third->counts["provision_runtime"].queued == 1);
    }
  }
}

TEST_CASE("an ended operation that takes part in admission queues again when retried",
          "[storage][admission][retry]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto plain = make_op("op-plain", 1);
      commit_ok(*st, {create(queued("op-r1", 10, "r")), create(plain)});
      REQUIRE(st->admit({}, at(15)));
      auto r1 = load_ok(*st, "op-r1");
      REQUIRE(r1.admission == admission::admitted);
      r1 = next(r1, op_state::failed, 20);
      commit_ok(*st, {update(r1), update(next(plain, op_state::failed, 20))});
      // The key passes to a newer operation while op-r1 is failed.
      commit_ok(*st, {create(queued("op-r2", 30, "r"))});
      auto round = st->admit({}, at(35));
      REQUIRE(round);
      CHECK(round->startable == std::vector<std::string>{"op-r2"});
      // With the revision the round read: an operation retried since is
      // told apart from the one the round saw.
      CHECK(round->startable_revisions == std::vector<int64_t>{load_ok(*st, "op-r2").revision});
      // Retried: out of its end state, op-r1 is queued again, behind op-r2.
      commit_ok(*st, {update(next(r1, op_state::pending, 40)),
                      update(next(next(plain, op_state::failed, 20), op_state::pending, 40))});
      CHECK(load_ok(*st, "op-r1").admission == admission::queued);
      CHECK(load_ok(*st, "op-plain").admission == admission::none);
      round = st->admit({}, at(45));
      REQUIRE(round);
      CHECK(round->startable == std::vector<std::string>{"op-r2"});
      CHECK(load_ok(*st, "op-r1").blocked_by == "op-r2");
      // Later updates while it is queued leave the round's columns alone.
      auto r1_again = load_ok(*st, "op-r1");
      commit_ok(*st, {update(next(r1_again, op_state::pending, 50))});
      CHECK(load_ok(*st, "op-r1").blocked_by == "op-r2");
    }
  }
}
