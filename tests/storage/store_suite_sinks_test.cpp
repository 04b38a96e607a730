// The backend-independent store suite, part 4: the outbox's sink cursors
// and leases (engine/sink_store.hpp).

#include <catch2/catch.hpp>

#include "engine/sink_store.hpp"
#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

sink_store& sinks_of(const store_ptr& st) {
  auto* s = dynamic_cast<sink_store*>(st.get());
  REQUIRE(s != nullptr);
  return *s;
}

std::optional<int64_t> acquire_ok(sink_store& s, const std::string& holder, duration ttl = 10s,
                                  sink_start start = sink_start::beginning, bool steal = false) {
  auto res = s.acquire_sink("hook", holder, ttl, start, steal);
  if (!res)
    FAIL("acquire_sink failed: " << message_of(res.error()));
  return *res;
}

sink_record record_ok(sink_store& s) {
  auto res = s.sink_records();
  if (!res)
    FAIL("sink_records failed: " << message_of(res.error()));
  REQUIRE(res->size() == 1);
  return res->front();
}

// Commits two operations of different workflows with three events.
void seed_sinks(store& st) {
  auto a = make_op("op-a", 1, "provision_runtime");
  auto b = make_op("op-b", 2, "demo");
  commit_ok(st, {create(a, {make_event("op-a", event_type::operation_created, 1)}),
                 create(b, {make_event("op-b", event_type::operation_created, 2)})});
  commit_ok(st, {update(next(a, op_state::in_progress, 3),
                        {make_event("op-a", event_type::step_started, 3, "s1")})});
}

} // namespace

TEST_CASE("events for sinks carry their operation's workflow", "[storage][sinks]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      seed_sinks(*st);
      auto got = sinks_of(st).routed_events_after(0, 10);
      REQUIRE(got);
      REQUIRE(got->size() == 3);
      auto plain = all_events(*st);
      for (size_t i = 0; i < got->size(); ++i)
        check_same((*got)[i].ev, plain[i]);
      CHECK((*got)[0].workflow == "provision_runtime");
      CHECK((*got)[1].workflow == "demo");
      CHECK((*got)[2].workflow == "provision_runtime");
      auto page = sinks_of(st).routed_events_after(1, 1);
      REQUIRE(page);
      REQUIRE(page->size() == 1);
      CHECK(page->front().ev.seq == 2);
      auto none = sinks_of(st).routed_events_after(3, 10);
      REQUIRE(none);
      CHECK(none->empty());
    }
  }
}

TEST_CASE("a sink starts at the beginning or the end of the log", "[storage][sinks]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      seed_sinks(*st);
      auto& s = sinks_of(st);
      CHECK(acquire_ok(s, "p1") == 0);
      auto late = s.acquire_sink("late", "p1", 10s, sink_start::end, false);
      REQUIRE(late);
      CHECK(*late == 3);
      // An existing sink keeps its cursor whatever `start` says.
      CHECK(acquire_ok(s, "p1", 10s, sink_start::end) == 0);
      auto all = s.sink_records();
      REQUIRE(all);
      REQUIRE(all->size() == 2);
      CHECK(all->at(0).name == "hook");
      CHECK(all->at(1).name == "late");
      CHECK(all->at(1).cursor == 3);
    }
  }
}

TEST_CASE("one holder at a time: renewal, release, expiry and stealing", "[storage][sinks]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto& s = sinks_of(st);
      CHECK(acquire_ok(s, "p1") == 0);
      CHECK_FALSE(acquire_ok(s, "p2").has_value());
      CHECK(acquire_ok(s, "p1") == 0); // renewal
      auto rec = record_ok(s);
      CHECK(rec.holder == "p1");
      CHECK(rec.lease_expires_at.has_value());
      // Only the holder releases.
      REQUIRE_FALSE(s.release_sink("hook", "p2"));
      CHECK_FALSE(acquire_ok(s, "p2").has_value());
      REQUIRE_FALSE(s.release_sink("hook", "p1"));
      CHECK(record_ok(s).holder.empty());
      CHECK(acquire_ok(s, "p2") == 0);
      CHECK(code_of(s.update_sink("hook", "p1", 10s, {5, std::nullopt})) == errc::stale_revision);
      // An expired lease goes to whoever asks.
      CHECK(acquire_ok(s, "p2", 0us) == 0);
      CHECK(acquire_ok(s, "p3") == 0);
      // Stealing ignores a live lease.
      CHECK(acquire_ok(s, "p4", 10s, sink_start::beginning, true) == 0);
      CHECK(record_ok(s).holder == "p4");
    }
  }
}

TEST_CASE("the cursor only moves forward and records delivery and errors", "[storage][sinks]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto& s = sinks_of(st);
      REQUIRE(acquire_ok(s, "p1") == 0);
      auto rec = record_ok(s);
      CHECK_FALSE(rec.delivered_at.has_value());
      CHECK(rec.last_error.empty());
      REQUIRE_FALSE(s.update_sink("hook", "p1", 10s, {7, std::string{}}));
      rec = record_ok(s);
      CHECK(rec.cursor == 7);
      CHECK(rec.delivered_at.has_value());
      REQUIRE_FALSE(s.update_sink("hook", "p1", 10s, {3, std::string{"503"}}));
      rec = record_ok(s);
      CHECK(rec.cursor == 7);
      CHECK(rec.last_error == "503");
      CHECK(rec.failed_at.has_value());
      // No error given: the stored one stays.
      REQUIRE_FALSE(s.update_sink("hook", "p1", 10s, {7, std::nullopt}));
      CHECK(record_ok(s).last_error == "503");
      REQUIRE_FALSE(s.update_sink("hook", "p1", 10s, {9, std::string{}}));
      rec = record_ok(s);
      CHECK(rec.cursor == 9);
      CHECK(rec.last_error.empty());
      // A new holder resumes from the stored cursor.
      REQUIRE_FALSE(s.release_sink("hook", "p1"));
      CHECK(acquire_ok(s, "p2") == 9);
    }
  }
}
