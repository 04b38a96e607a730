// The backend-independent store suite, part 9: finding operations (labels,
// creation time range, idempotency key) and one operation's events from the
// index by operation.

#include <catch2/catch.hpp>

#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

using ids = std::vector<std::string>;
using labels_t = std::map<std::string, std::string>;

operation labeled(std::string id, int64_t created, labels_t labels, std::string wf = "w1") {
  auto op = make_op(std::move(id), created, wf);
  op.labels = std::move(labels);
  return op;
}

// Newest first: f, e, d, c, b, a.
void seed_labeled(store& st) {
  auto b = labeled("op-b", 200, {{"runtime", "rt-1"}}, "w2");
  b.idempotency_key = "key-b";
  auto e = labeled("op-e", 500, {{"runtime", "rt-1"}, {"location", "dc1"}});
  e.state = op_state::succeeded;
  commit_ok(st,
            {create(labeled("op-a", 100, {{"runtime", "rt-1"}, {"location", "dc1"}})), create(b),
             create(labeled("op-c", 300, {{"runtime", "rt-2"}, {"location", "dc1"}})),
             create(labeled("op-d", 400, {})), create(e),
             create(labeled("op-f", 600, {{"runtime", "rt-1"}, {"location", "dc2"}}))});
}

ids listed(store& st, list_filter f) {
  auto page = st.list(f);
  if (!page)
    FAIL("list failed: " << message_of(page.error()));
  return ids_of(page->items);
}

// Every page of `f`, `per_page` at a time, joined.
ids paged(store& st, list_filter f, size_t per_page) {
  ids out;
  f.limit = per_page;
  for (int pages = 0; pages < 100; ++pages) {
    auto page = st.list(f);
    if (!page)
      FAIL("list failed: " << message_of(page.error()));
    for (auto& op : page->items)
      out.push_back(op.id);
    if (page->next_cursor.empty())
      return out;
    f.cursor = page->next_cursor;
  }
  FAIL("a cursor that never ends");
  return out;
}

list_filter by_labels(std::vector<std::pair<std::string, std::string>> labels) {
  list_filter f;
  f.labels = std::move(labels);
  return f;
}

} // namespace

TEST_CASE("labels are stored with the operation and kept by its updates", "[storage][labels]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto op = labeled("op-l", 100, {{"runtime", "rt-1"}, {"k.x_y-z", std::string(256, 'v')}});
      commit_ok(*st, {create(op)});
      auto got = st->load("op-l");
      REQUIRE(got);
      REQUIRE(*got);
      check_same(**got, op);
      auto moved = next(op, op_state::in_progress, 200);
      commit_ok(*st, {update(moved)});
      got = st->load("op-l");
      REQUIRE(got);
      REQUIRE(*got);
      CHECK((*got)->labels == op.labels);
      auto none = make_op("op-n", 100);
      commit_ok(*st, {create(none)});
      got = st->load("op-n");
      REQUIRE(got);
      REQUIRE(*got);
      CHECK((*got)->labels.empty());
    }
  }
}

TEST_CASE("list filters by labels, all of them, with the other filters", "[storage][labels]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      seed_labeled(*st);
      CHECK(listed(*st, by_labels({{"runtime", "rt-1"}})) == ids{"op-f", "op-e", "op-b", "op-a"});
      CHECK(listed(*st, by_labels({{"runtime", "rt-1"}, {"location", "dc1"}}))
            == ids{"op-e", "op-a"});
      CHECK(listed(*st, by_labels({{"location", "dc1"}, {"runtime", "rt-1"}}))
            == ids{"op-e", "op-a"});
      CHECK(listed(*st, by_labels({{"runtime", "rt-9"}})).empty());
      CHECK(listed(*st, by_labels({{"runtime", "rt-1"}, {"location", "dc9"}})).empty());
      // A value is matched whole, a key too.
      CHECK(listed(*st, by_labels({{"runtime", "rt-"}})).empty());
      CHECK(listed(*st, by_labels({{"runtim", "rt-1"}})).empty());
      auto f = by_labels({{"runtime", "rt-1"}});
      f.state = op_state::succeeded;
      CHECK(listed(*st, f) == ids{"op-e"});
      f = by_labels({{"runtime", "rt-1"}});
      f.workflow = "w2";
      CHECK(listed(*st, f) == ids{"op-b"});
      // Paged: every page in order, nothing twice.
      for (size_t per_page : {1, 2, 3})
        CHECK(paged(*st, by_labels({{"runtime", "rt-1"}}), per_page)
              == ids{"op-f", "op-e", "op-b", "op-a"});
      CHECK(paged(*st, by_labels({{"location", "dc1"}, {"runtime", "rt-1"}}), 1)
            == ids{"op-e", "op-a"});
    }
  }
}

TEST_CASE("list filters by creation time and by idempotency key", "[storage][labels]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      seed_labeled(*st);
      list_filter f;
      f.created_after = at(200);
      f.created_before = at(600);
      CHECK(listed(*st, f) == ids{"op-e", "op-d", "op-c"});
      CHECK(paged(*st, f, 2) == ids{"op-e", "op-d", "op-c"});
      f.created_before.reset();
      CHECK(listed(*st, f) == ids{"op-f", "op-e", "op-d", "op-c"});
      f = list_filter{};
      f.created_before = at(200);
      CHECK(listed(*st, f) == ids{"op-a"});
      // With a label: the label's index, its own copy of the time.
      f = by_labels({{"runtime", "rt-1"}});
      f.created_after = at(100);
      f.created_before = at(600);
      CHECK(listed(*st, f) == ids{"op-e", "op-b"});
      CHECK(paged(*st, f, 1) == ids{"op-e", "op-b"});
      f = list_filter{};
      f.idempotency_key = "key-b";
      CHECK(listed(*st, f) == ids{"op-b"});
      f.idempotency_key = "key-x";
      CHECK(listed(*st, f).empty());
      f = by_labels({{"runtime", "rt-1"}});
      f.idempotency_key = "key-b";
      CHECK(listed(*st, f) == ids{"op-b"});
      f.labels = {{"runtime", "rt-2"}};
      CHECK(listed(*st, f).empty());
      f = list_filter{};
      f.idempotency_key = "key-b";
      f.created_after = at(200);
      CHECK(listed(*st, f).empty());
    }
  }
}

TEST_CASE("an operation's events: complete, in order, paged", "[storage][labels]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto y = make_op("op-y", 10);
      commit_ok(*st, {create(make_op("op-x", 10)), create(y)});
      // op-x's events spread among many of op-y's, over several commits.
      std::vector<int64_t> mine;
      for (int round = 0; round < 20; ++round) {
        y = next(y, op_state::in_progress, round);
        std::vector<event> evs;
        for (int i = 0; i < 50; ++i)
          evs.push_back(make_event("op-y", event_type::step_started, round));
        evs.push_back(
          make_event("op-x", event_type::step_started, round, "s" + std::to_string(round)));
        auto res = commit_ok(*st, {update(y, evs)});
        mine.push_back(res.events.back().seq);
      }
      auto all = st->events_of("op-x", 0, 1000);
      REQUIRE(all);
      REQUIRE(all->size() == 20);
      for (size_t i = 0; i < 20; ++i) {
        CHECK(all->at(i).seq == mine[i]);
        CHECK(all->at(i).operation_id == "op-x");
        CHECK(all->at(i).step == "s" + std::to_string(i));
      }
      std::vector<int64_t> seen;
      int64_t after = 0;
      for (;;) {
        auto page = st->events_of("op-x", after, 7);
        REQUIRE(page);
        for (auto& e : *page)
          seen.push_back(e.seq);
        if (page->size() < 7)
          break;
        after = page->back().seq;
      }
      CHECK(seen == mine);
      auto none = st->events_of("op-none", 0, 10);
      REQUIRE(none);
      CHECK(none->empty());
    }
  }
}
