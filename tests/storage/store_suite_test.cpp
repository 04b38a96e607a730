// The backend-independent store suite, part 1: operations (create, load,
// update, idempotency keys, recovery reads). Every test runs once per
// backend from test_backends(), through the store interface only.

#include <algorithm>
#include <limits>

#include <catch2/catch.hpp>

#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

// An operation with every field set, odd values included.
operation full_operation() {
  auto op = make_op("op-full-ü", 17, "build_and_launch");
  op.workflow_version = 7;
  op.state = op_state::waiting;
  op.input = std::make_shared<const boost::json::object>(boost::json::parse(R"({
      "name": "héllo ✓ 日本語 🚀", "": "empty key",
      "nested": {"list": [1, -2.5, true, false, null, "x", [], {}]},
      "max": 9223372036854775807, "min": -9223372036854775808,
      "quote": "a\"b\\c\n\t\u0001/"
    })")
                                                           .as_object());
  // Big data: a checkpoint of a real operation can carry megabytes.
  op.data["blob"] = std::string(2'000'000, 'x') + "✓";
  boost::json::object many;
  for (int i = 0; i < 2000; ++i)
    many["k" + std::to_string(i)] = i;
  op.data["many"] = std::move(many);
  op.data["pi"] = 3.141592653589793;
  op.steps = {
    {"allocate", 10, step_state::succeeded, 2, at(100), at(200), std::nullopt, 1234,
     "first try: timeout ⏱"},
    {"boot", 20, step_state::waiting, 1, at(300), at(300), at(900), 5, ""},
    {"ping", 30, step_state::pending, 0, std::nullopt, std::nullopt, std::nullopt, 0, ""},
  };
  op.error = "boom ✗";
  op.updated_at = at(5'000'001);
  op.deadline = at(86'400'000'003);
  op.idempotency_key = "key-ü-1";
  op.request_hash = "sha256:0123456789abcdef";
  op.wake_at = at(900);
  return op;
}

std::vector<std::string> sorted(std::vector<std::string> xs) {
  std::sort(xs.begin(), xs.end());
  return xs;
}

} // namespace

TEST_CASE("a created operation loads back with every field", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto full = full_operation();
      // The other extreme: every optional field absent, no steps, no input.
      auto bare = make_op("op-bare", 18);
      bare.input = nullptr;
      bare.steps.clear();
      auto res = commit_ok(*st, {create(full), create(bare)});
      CHECK(res.status[0] == write_status::ok);
      CHECK(res.status[1] == write_status::ok);
      check_same(load_ok(*st, full.id), full);
      check_same(load_ok(*st, bare.id), bare);
      require_absent(*st, "op-unknown");
    }
  }
}

TEST_CASE("an update with the expected revision replaces the operation", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto v1 = make_op("op-1");
      commit_ok(*st, {create(v1)});
      auto v2 = next(v1, op_state::in_progress, 100);
      v2.data["vm"] = "vm-1";
      v2.steps[0] = {"allocate", 10, step_state::succeeded, 1, at(50), at(60), std::nullopt,
                     12,         ""};
      v2.steps.push_back(
        {"boot", 20, step_state::waiting, 1, at(70), at(70), at(500), 3, "not yet"});
      v2.deadline = at(9'000);
      v2.wake_at = at(500);
      auto res = commit_ok(*st, {update(v2)});
      CHECK(res.status[0] == write_status::ok);
      check_same(load_ok(*st, "op-1"), v2);
      // Optional fields can be cleared again.
      auto v3 = next(v2, op_state::failed, 200);
      v3.deadline.reset();
      v3.wake_at.reset();
      v3.error = "gave up";
      res = commit_ok(*st, {update(v3)});
      CHECK(res.status[0] == write_status::ok);
      check_same(load_ok(*st, "op-1"), v3);
    }
  }
}

TEST_CASE("an update with a stale revision writes nothing", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto v1 = make_op("op-1");
      commit_ok(*st, {create(v1, {make_event("op-1", event_type::operation_created)})});
      auto v2 = next(v1, op_state::in_progress, 100);
      commit_ok(*st, {update(v2)});
      auto seq = last_seq_ok(*st);
      // A second writer that also started from v1 loses.
      auto lost = next(v1, op_state::canceled, 150);
      // A writer that skipped a revision loses too.
      auto skipped = next(next(v2, op_state::failed, 160), op_state::failed, 170);
      // An update of an operation that does not exist.
      auto ghost = next(make_op("op-ghost"), op_state::in_progress, 180);
      auto res =
        commit_ok(*st, {update(lost, {make_event("op-1", event_type::operation_canceled)}),
                        update(skipped, {make_event("op-1", event_type::step_failed)}),
                        update(ghost, {make_event("op-ghost", event_type::step_started)})});
      CHECK(res.status[0] == write_status::stale_revision);
      CHECK(res.status[1] == write_status::stale_revision);
      CHECK(res.status[2] == write_status::stale_revision);
      CHECK(res.events.empty());
      check_same(load_ok(*st, "op-1"), v2);
      require_absent(*st, "op-ghost");
      CHECK(last_seq_ok(*st) == seq);
      CHECK(all_events(*st).size() == 1);
    }
  }
}

TEST_CASE("a stale item leaves the other items of its batch written", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto a = make_op("op-a", 1);
      auto b = make_op("op-b", 2);
      commit_ok(*st, {create(a), create(b)});
      auto a2 = next(a, op_state::in_progress, 10);
      auto b_stale = next(next(b, op_state::failed, 10), op_state::failed, 11);
      auto c = make_op("op-c", 3);
      auto res =
        commit_ok(*st, {update(a2, {make_event("op-a", event_type::step_started, 10, "s1"),
                                    make_event("op-a", event_type::step_succeeded, 11, "s1")}),
                        update(b_stale, {make_event("op-b", event_type::step_failed)}),
                        create(c, {make_event("op-c", event_type::operation_created)})});
      REQUIRE(res.status
              == std::vector<write_status>{write_status::ok, write_status::stale_revision,
                                           write_status::ok});
      check_same(load_ok(*st, "op-a"), a2);
      check_same(load_ok(*st, "op-b"), b);
      check_same(load_ok(*st, "op-c"), c);
      REQUIRE(res.events.size() == 3);
      CHECK(res.events[0].operation_id == "op-a");
      CHECK(res.events[1].operation_id == "op-a");
      CHECK(res.events[2].operation_id == "op-c");
      CHECK(res.events[1].seq == res.events[0].seq + 1);
      CHECK(res.events[2].seq == res.events[1].seq + 1);
      auto log = all_events(*st);
      REQUIRE(log.size() == 3);
      for (size_t i = 0; i < log.size(); ++i)
        check_same(log[i], res.events[i]);
    }
  }
}

TEST_CASE("a taken idempotency key rejects only the item that reuses it", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto a = make_op("op-a", 1);
      a.idempotency_key = "key-1";
      auto b = make_op("op-b", 2);
      b.idempotency_key = "key-1";
      // Operations without a key never conflict with each other.
      auto c = make_op("op-c", 3);
      auto d = make_op("op-d", 4);
      auto res = commit_ok(*st, {create(a, {make_event("op-a", event_type::operation_created)}),
                                 create(b, {make_event("op-b", event_type::operation_created)}),
                                 create(c), create(d)});
      REQUIRE(res.status
              == std::vector<write_status>{write_status::ok, write_status::duplicate_key,
                                           write_status::ok, write_status::ok});
      REQUIRE(res.events.size() == 1);
      CHECK(res.events[0].operation_id == "op-a");
      require_absent(*st, "op-b");
      check_same(load_ok(*st, "op-c"), c);
      check_same(load_ok(*st, "op-d"), d);
      // Across batches: the key stays taken.
      auto e = make_op("op-e", 5);
      e.idempotency_key = "key-1";
      auto f = make_op("op-f", 6);
      f.idempotency_key = "key-2";
      res = commit_ok(*st, {create(e, {make_event("op-e", event_type::operation_created)}),
                            create(f, {make_event("op-f", event_type::operation_created)})});
      REQUIRE(res.status
              == std::vector<write_status>{write_status::duplicate_key, write_status::ok});
      REQUIRE(res.events.size() == 1);
      CHECK(res.events[0].operation_id == "op-f");
      require_absent(*st, "op-e");
      check_same(load_ok(*st, "op-a"), a);
      CHECK(all_events(*st).size() == 2);
    }
  }
}

TEST_CASE("a create with a taken id writes nothing", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto a = make_op("op-a", 1);
      commit_ok(*st, {create(a)});
      auto again = make_op("op-a", 2, "other_workflow");
      auto res =
        commit_ok(*st, {create(again, {make_event("op-a", event_type::operation_created)})});
      CHECK(res.status[0] == write_status::duplicate_key);
      CHECK(res.events.empty());
      check_same(load_ok(*st, "op-a"), a);
      CHECK(last_seq_ok(*st) == 0);
    }
  }
}

TEST_CASE("find_by_key returns the operation created with the key", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto a = make_op("op-a", 1);
      a.idempotency_key = "key-ä";
      a.request_hash = "hash-a";
      auto b = make_op("op-b", 2);
      commit_ok(*st, {create(a), create(b)});
      auto found = st->find_by_key("key-ä");
      REQUIRE(found);
      REQUIRE(found->has_value());
      check_same(**found, a);
      auto none = st->find_by_key("key-unknown");
      REQUIRE(none);
      CHECK_FALSE(none->has_value());
      // An operation without a key is not found by the empty key.
      auto empty = st->find_by_key("");
      REQUIRE(empty);
      CHECK_FALSE(empty->has_value());
    }
  }
}

TEST_CASE("load_active_page pages through the active operations oldest first", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      // Two share a creation time (the id breaks the tie); one has ended.
      std::vector<checkpoint> batch;
      for (auto [id, t] : std::vector<std::pair<std::string, int64_t>>{
             {"op-e", 50}, {"op-b", 20}, {"op-c", 20}, {"op-a", 10}, {"op-d", 40}})
        batch.push_back(create(make_op(id, t)));
      auto ended = make_op("op-x", 30);
      ended.state = op_state::succeeded;
      batch.push_back(create(ended));
      commit_ok(*st, batch);
      std::vector<std::string> seen;
      std::optional<active_position> after;
      std::vector<size_t> sizes;
      for (int round = 0; round < 10; ++round) {
        auto page = st->load_active_page(after, 2);
        REQUIRE(page);
        sizes.push_back(page->size());
        for (auto& op : *page)
          seen.push_back(op.id);
        if (page->size() < 2)
          break;
        after = active_position{page->back().created_at, page->back().id};
      }
      CHECK(seen == std::vector<std::string>{"op-a", "op-b", "op-c", "op-d", "op-e"});
      CHECK(sizes == std::vector<size_t>{2, 2, 1});
      auto all = st->load_active_page(std::nullopt, 100);
      REQUIRE(all);
      CHECK(ids_of(*all) == seen);
    }
  }
}

TEST_CASE("load_active returns exactly the operations that are not terminal", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      std::vector<checkpoint> batch;
      std::vector<operation> ops;
      for (int i = 0; i <= static_cast<int>(op_state::compensating); ++i) {
        auto state = static_cast<op_state>(i);
        auto op = make_op(std::string{"op-"} + std::string{to_string(state)}, i);
        op.state = state;
        ops.push_back(op);
        batch.push_back(create(op));
      }
      commit_ok(*st, batch);
      auto active = st->load_active();
      REQUIRE(active);
      CHECK(sorted(ids_of(*active))
            == sorted({"op-pending", "op-in_progress", "op-waiting", "op-compensating"}));
      for (auto& op : *active)
        if (op.id == "op-waiting")
          check_same(op, ops[static_cast<size_t>(op_state::waiting)]);
      // Finishing one and retrying a failed one change the answer.
      auto done = next(ops[static_cast<size_t>(op_state::in_progress)], op_state::canceled, 100);
      auto retried = next(ops[static_cast<size_t>(op_state::failed)], op_state::pending, 100);
      commit_ok(*st, {update(done), update(retried)});
      active = st->load_active();
      REQUIRE(active);
      CHECK(sorted(ids_of(*active))
            == sorted({"op-pending", "op-failed", "op-waiting", "op-compensating"}));
    }
  }
}
