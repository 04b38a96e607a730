// The backend-independent store suite, part 3: the event log and batches
// (in order, all or nothing).

#include <catch2/catch.hpp>

#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

event task_completed(const std::string& op_id) {
  auto ev = make_event(op_id, event_type::infrastructure_task_completed, 77, "wait_for_vm");
  ev.attempt = 3;
  ev.state = "succeeded";
  ev.error = "warning: slow ⚠";
  ev.extra = boost::json::parse(R"({
    "infrastructure_id": "i-1", "request_id": "r-1", "status": "COMPLETE",
    "failure_details": null, "outputs": {"ip": "10.0.0.1", "ünï": "✓"}
  })")
               .as_object();
  ev.by = "osb:platform";
  return ev;
}

// Commits `n` events of one operation, one update each.
operation append_events(store& st, operation op, int n) {
  for (int i = 0; i < n; ++i) {
    op = next(op, op_state::in_progress, i);
    auto res = commit_ok(st, {update(op, {make_event(op.id, event_type::step_started, i)})});
    REQUIRE(res.status[0] == write_status::ok);
  }
  return op;
}

} // namespace

TEST_CASE("events get strictly increasing seqs without gaps", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      CHECK(last_seq_ok(*st) == 0);
      CHECK(all_events(*st).empty());
      auto a = make_op("op-a", 1);
      auto b = make_op("op-b", 2);
      // `by` with and without extra fields (it is kept among them).
      auto created_b = make_event("op-b", event_type::operation_created, 2);
      created_b.by = "ci";
      auto r1 = commit_ok(*st, {create(a, {make_event("op-a", event_type::operation_created, 1)}),
                                create(b, {created_b})});
      auto a2 = next(a, op_state::in_progress, 10);
      auto b2 = next(b, op_state::in_progress, 10);
      auto r2 =
        commit_ok(*st, {update(a2, {make_event("op-a", event_type::step_started, 10, "s1"),
                                    task_completed("op-a")}),
                        update(b2, {make_event("op-b", event_type::step_started, 11, "s1")})});
      std::vector<event> written = r1.events;
      written.insert(written.end(), r2.events.begin(), r2.events.end());
      REQUIRE(written.size() == 5);
      // Log order: batch order, then each item's events in order.
      std::vector<std::string> order;
      for (auto& ev : written)
        order.push_back(ev.operation_id + "/" + std::string{to_string(ev.type)});
      CHECK(order
            == std::vector<std::string>{"op-a/operation_created", "op-b/operation_created",
                                        "op-a/step_started", "op-a/infrastructure_task_completed",
                                        "op-b/step_started"});
      CHECK(written.front().seq == 1);
      for (size_t i = 1; i < written.size(); ++i)
        CHECK(written[i].seq == written[i - 1].seq + 1);
      // Every field comes back as given.
      auto want = task_completed("op-a");
      want.seq = written[3].seq;
      check_same(written[3], want);
      auto log = all_events(*st);
      REQUIRE(log.size() == written.size());
      for (size_t i = 0; i < log.size(); ++i)
        check_same(log[i], written[i]);
      CHECK(log[0].by.empty());
      CHECK(log[1].by == "ci");
      CHECK(log[1].extra.empty());
      CHECK(log[3].by == "osb:platform");
      CHECK(!log[3].extra.contains("by"));
      CHECK(last_seq_ok(*st) == written.back().seq);
    }
  }
}

TEST_CASE("events_after pages through the log oldest first", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto op = make_op("op-a");
      commit_ok(*st, {create(op)});
      append_events(*st, op, 25);
      REQUIRE(last_seq_ok(*st) == 25);
      int64_t after = 0;
      std::vector<size_t> sizes;
      for (;;) {
        auto page = st->events_after(after, 10);
        REQUIRE(page);
        if (page->empty())
          break;
        sizes.push_back(page->size());
        for (auto& ev : *page)
          CHECK(ev.seq == ++after);
        REQUIRE(sizes.size() < 10);
      }
      CHECK(sizes == std::vector<size_t>{10, 10, 5});
      CHECK(after == 25);
      auto middle = st->events_after(7, 3);
      REQUIRE(middle);
      REQUIRE(middle->size() == 3);
      CHECK(middle->front().seq == 8);
      CHECK(middle->back().seq == 10);
      auto none = st->events_after(7, 0);
      REQUIRE(none);
      CHECK(none->empty());
      auto past = st->events_after(1000, 10);
      REQUIRE(past);
      CHECK(past->empty());
    }
  }
}

TEST_CASE("last_seq follows written events only", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      CHECK(last_seq_ok(*st) == 0);
      auto op = make_op("op-a");
      commit_ok(*st, {create(op, {make_event("op-a", event_type::operation_created)})});
      CHECK(last_seq_ok(*st) == 1);
      // Writes without events and stale items leave it alone.
      auto v2 = next(op, op_state::in_progress, 5);
      commit_ok(*st, {update(v2)});
      commit_ok(*st, {update(next(op, op_state::failed, 6),
                             {make_event("op-a", event_type::step_failed)})});
      CHECK(last_seq_ok(*st) == 1);
      append_events(*st, v2, 3);
      CHECK(last_seq_ok(*st) == 4);
    }
  }
}

TEST_CASE("an empty batch commits nothing", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto res = st->commit({});
      REQUIRE(res);
      CHECK(res->status.empty());
      CHECK(res->events.empty());
      CHECK(last_seq_ok(*st) == 0);
    }
  }
}

TEST_CASE("a failed commit writes nothing of its batch", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto a = make_op("op-a", 1);
      commit_ok(*st, {create(a)});
      auto a2 = next(a, op_state::in_progress, 5);
      auto b = make_op("op-b", 2);
      // A checkpoint without an operation is a caller bug: the whole batch
      // fails, including the items before it.
      checkpoint broken{checkpoint::kind::update, nullptr, {}};
      auto res =
        st->commit({update(a2, {make_event("op-a", event_type::step_started)}),
                    create(b, {make_event("op-b", event_type::operation_created)}), broken});
      REQUIRE_FALSE(res);
      CHECK(code_of(res.error()) != errc{});
      check_same(load_ok(*st, "op-a"), a);
      require_absent(*st, "op-b");
      CHECK(all_events(*st).empty());
      CHECK(last_seq_ok(*st) == 0);
      // The store still works afterwards.
      auto ok =
        commit_ok(*st, {update(a2, {make_event("op-a", event_type::step_started)}), create(b)});
      CHECK(ok.status == std::vector<write_status>{write_status::ok, write_status::ok});
      check_same(load_ok(*st, "op-a"), a2);
      check_same(load_ok(*st, "op-b"), b);
      CHECK(all_events(*st).size() == 1);
    }
  }
}

TEST_CASE("successive writes of one operation in one batch apply in order", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      // Group commit may gather a create and the next steps' checkpoints.
      auto v1 = make_op("op-a", 1);
      auto v2 = next(v1, op_state::in_progress, 10);
      auto v3 = next(v2, op_state::succeeded, 20);
      auto res = commit_ok(*st, {create(v1, {make_event("op-a", event_type::operation_created)}),
                                 update(v2, {make_event("op-a", event_type::step_started)}),
                                 update(v3, {make_event("op-a", event_type::operation_succeeded)}),
                                 update(v2, {make_event("op-a", event_type::step_failed)})});
      CHECK(res.status
            == std::vector<write_status>{write_status::ok, write_status::ok, write_status::ok,
                                         write_status::stale_revision});
      check_same(load_ok(*st, "op-a"), v3);
      REQUIRE(res.events.size() == 3);
      CHECK(res.events.back().type == event_type::operation_succeeded);
      auto active = st->load_active();
      REQUIRE(active);
      CHECK(active->empty());
    }
  }
}

TEST_CASE("a batch of many events stores each with the seq it answers", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto a = make_op("op-a", 1);
      auto b = make_op("op-b", 2);
      commit_ok(*st, {create(a), create(b)});
      // More events than one insert statement takes, some with extra
      // fields, and a stale item between whose events must not be written.
      std::vector<event> many;
      for (int i = 0; i < 70; ++i)
        many.push_back(i % 3 == 0 ? task_completed("op-a")
                                  : make_event("op-a", event_type::step_started, i));
      auto a2 = next(a, op_state::in_progress, 5);
      auto stale = next(next(b, op_state::in_progress, 6), op_state::in_progress, 7);
      auto b2 = next(b, op_state::in_progress, 8);
      auto res = commit_ok(
        *st,
        {update(a2, many), update(stale, {make_event("op-b", event_type::step_failed)}),
         update(b2, {make_event("op-b", event_type::step_started, 9), task_completed("op-b")})});
      CHECK(res.status
            == std::vector<write_status>{write_status::ok, write_status::stale_revision,
                                         write_status::ok});
      auto stored = all_events(*st);
      REQUIRE(res.events.size() == 72);
      REQUIRE(stored.size() == 72);
      for (size_t i = 0; i < stored.size(); ++i) {
        CHECK(stored[i].seq == res.events[i].seq);
        CHECK(stored[i].type == res.events[i].type);
        CHECK(stored[i].operation_id == res.events[i].operation_id);
        CHECK(stored[i].time == res.events[i].time);
        CHECK(stored[i].extra == res.events[i].extra);
        CHECK(stored[i].by == res.events[i].by);
        if (i > 0)
          CHECK(stored[i].seq == stored[i - 1].seq + 1);
      }
      CHECK(stored.back().operation_id == "op-b");
      CHECK(last_seq_ok(*st) == stored.back().seq);
    }
  }
}

TEST_CASE("a prepared checkpoint is written as the unprepared one would be", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto a = make_op("op-a", 1);
      a.data = boost::json::parse(R"({"vm": "i-1", "n": [1, 2]})").as_object();
      auto cp = create(a, {make_event("op-a", event_type::operation_created)});
      cp.prepared = st->prepare(cp);
      commit_ok(*st, {cp});
      check_same(load_ok(*st, "op-a"), a);
      auto a2 = next(a, op_state::in_progress, 5);
      a2.data["vm"] = "i-2";
      auto up = update(a2, {make_event("op-a", event_type::step_started)});
      up.prepared = st->prepare(up);
      auto res = commit_ok(*st, {up});
      CHECK(res.status[0] == write_status::ok);
      check_same(load_ok(*st, "op-a"), a2);
      CHECK(all_events(*st).size() == 2);
    }
  }
}

TEST_CASE("the state-change hint never changes what an update writes", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto a = make_op("op-a", 1);
      commit_ok(*st, {create(a)});
      // A hint that is wrong either way, then a right one.
      auto a2 = next(a, op_state::pending, 2);
      auto same_hinted = update(a2);
      same_hinted.state_changes = true;
      auto a3 = next(a2, op_state::in_progress, 3);
      auto moved_unhinted = update(a3);
      auto a4 = next(a3, op_state::succeeded, 4);
      auto moved_hinted = update(a4, {make_event("op-a", event_type::operation_succeeded)});
      moved_hinted.state_changes = true;
      for (auto* cp : {&same_hinted, &moved_unhinted, &moved_hinted})
        CHECK(commit_ok(*st, {*cp}).status[0] == write_status::ok);
      check_same(load_ok(*st, "op-a"), a4);
      // A stale update stays stale, hinted or not.
      auto stale = update(next(a, op_state::failed, 5));
      stale.state_changes = true;
      CHECK(commit_ok(*st, {stale}).status[0] == write_status::stale_revision);
      check_same(load_ok(*st, "op-a"), a4);
    }
  }
}
