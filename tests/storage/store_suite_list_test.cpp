// The backend-independent store suite, part 2: listing operations (order,
// filters, paging by cursor).

#include <set>

#include <catch2/catch.hpp>

#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

using ids = std::vector<std::string>;

// Six operations; c and d share a creation time, so the id decides.
// Newest first: e, d, c, b, a, f.
void seed_listed(store& st) {
  auto with = [](std::string id, int64_t created, std::string wf, op_state state) {
    auto op = make_op(id, created, wf);
    op.state = state;
    return create(op);
  };
  commit_ok(
    st, {with("op-a", 100, "w1", op_state::pending), with("op-b", 200, "w2", op_state::succeeded),
         with("op-c", 300, "w1", op_state::failed), with("op-d", 300, "w1", op_state::pending),
         with("op-e", 400, "w2", op_state::pending), with("op-f", 50, "w1", op_state::succeeded)});
}

operation_page list_ok(store& st, list_filter filter) {
  auto page = st.list(filter);
  if (!page)
    FAIL("list failed: " << message_of(page.error()));
  return std::move(*page);
}

// Follows cursors to the last page; returns the ids of every page.
std::vector<ids> all_pages(store& st, list_filter filter) {
  std::vector<ids> out;
  for (;;) {
    auto page = list_ok(st, filter);
    out.push_back(ids_of(page.items));
    if (page.next_cursor.empty())
      return out;
    REQUIRE(out.size() < 100); // a cursor that never ends
    filter.cursor = page.next_cursor;
  }
}

list_filter limit(size_t n) {
  list_filter f;
  f.limit = n;
  return f;
}

} // namespace

TEST_CASE("list returns operations newest first, then by id", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto empty = list_ok(*st, limit(10));
      CHECK(empty.items.empty());
      CHECK(empty.next_cursor.empty());
      seed_listed(*st);
      auto page = list_ok(*st, limit(50));
      CHECK(ids_of(page.items) == ids{"op-e", "op-d", "op-c", "op-b", "op-a", "op-f"});
      CHECK(page.next_cursor.empty());
      // Items are whole operations.
      REQUIRE(page.items.size() == 6);
      auto want = make_op("op-b", 200, "w2");
      want.state = op_state::succeeded;
      check_same(page.items[3], want);
    }
  }
}

TEST_CASE("list filters by state and by workflow", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      seed_listed(*st);
      auto f = limit(50);
      f.state = op_state::pending;
      CHECK(ids_of(list_ok(*st, f).items) == ids{"op-e", "op-d", "op-a"});
      f = limit(50);
      f.workflow = "w1";
      CHECK(ids_of(list_ok(*st, f).items) == ids{"op-d", "op-c", "op-a", "op-f"});
      f.state = op_state::pending;
      CHECK(ids_of(list_ok(*st, f).items) == ids{"op-d", "op-a"});
      f.state = op_state::canceled;
      auto none = list_ok(*st, f);
      CHECK(none.items.empty());
      CHECK(none.next_cursor.empty());
      f = limit(50);
      f.workflow = "no_such_workflow";
      CHECK(list_ok(*st, f).items.empty());
    }
  }
}

TEST_CASE("list pages with cursors until next_cursor is empty", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      seed_listed(*st);
      // The last page is full: it still ends the listing.
      CHECK(all_pages(*st, limit(2))
            == std::vector<ids>{{"op-e", "op-d"}, {"op-c", "op-b"}, {"op-a", "op-f"}});
      CHECK(all_pages(*st, limit(4))
            == std::vector<ids>{{"op-e", "op-d", "op-c", "op-b"}, {"op-a", "op-f"}});
      CHECK(all_pages(*st, limit(6))
            == std::vector<ids>{{"op-e", "op-d", "op-c", "op-b", "op-a", "op-f"}});
      auto f = limit(1);
      f.workflow = "w1";
      CHECK(all_pages(*st, f) == std::vector<ids>{{"op-d"}, {"op-c"}, {"op-a"}, {"op-f"}});
      f.state = op_state::succeeded;
      CHECK(all_pages(*st, f) == std::vector<ids>{{"op-f"}});
    }
  }
}

TEST_CASE("a cursor stays valid while newer operations arrive", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      seed_listed(*st);
      auto first = list_ok(*st, limit(2));
      REQUIRE(ids_of(first.items) == ids{"op-e", "op-d"});
      REQUIRE_FALSE(first.next_cursor.empty());
      commit_ok(*st, {create(make_op("op-g", 500)), create(make_op("op-cc", 300))});
      auto f = limit(3);
      f.cursor = first.next_cursor;
      // op-cc sorts after op-d (same time, smaller id): it is on this page.
      CHECK(ids_of(list_ok(*st, f).items) == ids{"op-cc", "op-c", "op-b"});
    }
  }
}

TEST_CASE("list rejects a malformed cursor and a zero limit", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      seed_listed(*st);
      for (std::string bad : {"not a cursor!", "x", "====", "op-a", "%%"}) {
        INFO("cursor '" << bad << "'");
        auto f = limit(2);
        f.cursor = bad;
        auto res = st->list(f);
        REQUIRE_FALSE(res);
        CHECK(code_of(res.error()) == errc::invalid_argument);
      }
      auto res = st->list(limit(0));
      REQUIRE_FALSE(res);
      CHECK(code_of(res.error()) == errc::invalid_argument);
    }
  }
}
