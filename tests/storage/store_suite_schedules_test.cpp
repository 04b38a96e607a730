// The backend-independent store suite: schedules (written by the batch
// commit with a revision check, read whole) and the operations' parent and
// schedule, with the lists filtered by them.

#include <catch2/catch.hpp>

#include "engine/store.hpp"
#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

schedule make_schedule(const std::string& id, int64_t revision) {
  schedule s;
  s.id = id;
  s.workflow = "demo";
  s.version = 2;
  s.input = {{"n", 1}, {"nested", {{"a", "b"}}}};
  s.cron = "*/5 * * * *";
  s.time_zone = "Europe/Berlin";
  s.overlap = overlap_policy::queue;
  s.catch_up = catch_up_policy::all;
  s.catch_up_window = 2h;
  s.end_at = at(5'000'001);
  s.revision = revision;
  s.created_at = at(1);
  s.updated_at = at(3);
  s.handled_until = at(7);
  s.last_operation = "op-9";
  s.last_fire = at(9);
  s.fired = 4;
  s.skipped = 2;
  return s;
}

checkpoint write(const schedule& s, std::vector<event> events = {}) {
  checkpoint cp{checkpoint::kind::schedule, nullptr, std::move(events)};
  cp.sched = std::make_shared<const schedule>(s);
  return cp;
}

checkpoint erase(const schedule& s) {
  checkpoint cp{checkpoint::kind::schedule_delete, nullptr, {}};
  cp.sched = std::make_shared<const schedule>(s);
  return cp;
}

void check_same(const schedule& a, const schedule& b) {
  CHECK(same_definition(a, b));
  CHECK(a.revision == b.revision);
  CHECK(a.created_at == b.created_at);
  CHECK(a.updated_at == b.updated_at);
  CHECK(a.handled_until == b.handled_until);
  CHECK(a.last_operation == b.last_operation);
  CHECK(a.last_fire == b.last_fire);
  CHECK(a.fired == b.fired);
  CHECK(a.skipped == b.skipped);
}

} // namespace

TEST_CASE("schedules are written with a revision check and read back whole",
          "[storage][schedules]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto s = make_schedule("nightly", 1);
      auto skipped = make_event("", event_type::schedule_skipped, 5);
      skipped.extra = {{"schedule", "nightly"}, {"count", 3}};
      auto res = commit_ok(*st, {write(s, {skipped}), write(make_schedule("a-first", 1))});
      CHECK(res.status == std::vector<write_status>{write_status::ok, write_status::ok});
      REQUIRE(res.events.size() == 1);
      CHECK(res.events[0].seq > 0);
      auto all = st->load_schedules();
      REQUIRE(all);
      REQUIRE(all->size() == 2);
      CHECK((*all)[0].id == "a-first");
      check_same((*all)[1], s);
      // The same id again: taken.
      res = commit_ok(*st, {write(make_schedule("nightly", 1))});
      CHECK(res.status[0] == write_status::duplicate_key);
      // A replacement of revision 1 wins once; the second is stale.
      auto edited = s;
      edited.revision = 2;
      edited.paused = true;
      edited.every = 30s;
      edited.cron.clear();
      edited.end_at.reset();
      res = commit_ok(*st, {write(edited), write(edited, {skipped})});
      CHECK(res.status
            == std::vector<write_status>{write_status::ok, write_status::stale_revision});
      CHECK(res.events.empty());
      auto one = st->load_schedule("nightly");
      REQUIRE(one);
      REQUIRE(*one);
      check_same(**one, edited);
      // A delete checks the revision too.
      auto gone = edited;
      gone.revision = 2; // stale: the stored one is 2
      CHECK(commit_ok(*st, {erase(gone)}).status[0] == write_status::stale_revision);
      gone.revision = 3;
      CHECK(commit_ok(*st, {erase(gone)}).status[0] == write_status::ok);
      one = st->load_schedule("nightly");
      REQUIRE(one);
      CHECK(!*one);
      CHECK(st->load_schedules()->size() == 1);
    }
  }
}

TEST_CASE("operations keep their parent and schedule; lists filter by them",
          "[storage][schedules]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto parent = make_op("op-p", 1);
      auto child1 = make_op("op-c1", 2);
      child1.parent_id = "op-p";
      auto child2 = make_op("op-c2", 3);
      child2.parent_id = "op-p";
      auto fired = make_op("op-s", 4);
      fired.schedule_id = "nightly";
      commit_ok(*st, {create(parent), create(child1), create(child2), create(fired)});
      CHECK(load_ok(*st, "op-c1").parent_id == "op-p");
      CHECK(load_ok(*st, "op-s").schedule_id == "nightly");
      CHECK(load_ok(*st, "op-p").parent_id.empty());
      // An update leaves them as created.
      commit_ok(*st, {update(next(child1, op_state::in_progress, 5))});
      CHECK(load_ok(*st, "op-c1").parent_id == "op-p");
      list_filter f;
      f.parent = "op-p";
      f.limit = 1;
      auto page = st->list(f);
      REQUIRE(page);
      REQUIRE(page->items.size() == 1);
      CHECK(page->items[0].id == "op-c2");
      f.cursor = page->next_cursor;
      page = st->list(f);
      REQUIRE(page);
      REQUIRE(page->items.size() == 1);
      CHECK(page->items[0].id == "op-c1");
      CHECK(page->next_cursor.empty());
      list_filter by_schedule;
      by_schedule.schedule = "nightly";
      page = st->list(by_schedule);
      REQUIRE(page);
      REQUIRE(page->items.size() == 1);
      CHECK(page->items[0].id == "op-s");
    }
  }
}
