// Tests of what only the SQLite store has: a file that outlives the store
// object, its migrations, its URI and damaged files.

#include <cstdio>

#include <sqlite3.h>

#include <catch2/catch.hpp>

#include "storage/open_store.hpp"
#include "storage/sqlite_migrations.hpp"
#include "storage/sqlite_rows.hpp"
#include "storage/sqlite_store.hpp"
#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

// Runs `sql` on the file directly, bypassing the store (which must be
// closed or idle), and returns the first column of the first row as int.
int64_t raw_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  auto rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  INFO(sqlite3_errmsg(db));
  REQUIRE(rc == SQLITE_OK);
  int64_t out = 0;
  rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW)
    out = sqlite3_column_int64(stmt, 0);
  INFO(sqlite3_errmsg(db));
  CHECK((rc == SQLITE_ROW || rc == SQLITE_DONE));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

std::shared_ptr<sqlite_store> open_ok(const std::string& path) {
  auto st = sqlite_store::open(path);
  if (!st)
    FAIL("open failed: " << message_of(st.error()));
  return std::move(*st);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("data survives closing and reopening the file", "[storage][sqlite]") {
  temp_dir dir;
  auto path = dir.file("store.db");
  auto a = make_op("op-a", 1);
  a.idempotency_key = "key-a";
  auto a2 = next(a, op_state::waiting, 10);
  a2.wake_at = at(1'000);
  {
    auto st = open_ok(path);
    commit_ok(*st, {create(a, {make_event("op-a", event_type::operation_created)})});
    commit_ok(*st, {update(a2, {make_event("op-a", event_type::operation_waiting)})});
  }
  {
    auto st = open_ok(path);
    check_same(load_ok(*st, "op-a"), a2);
    auto active = st->load_active();
    REQUIRE(active);
    CHECK(ids_of(*active) == std::vector<std::string>{"op-a"});
    auto by_key = st->find_by_key("key-a");
    REQUIRE((by_key && *by_key));
    CHECK(all_events(*st).size() == 2);
    CHECK(last_seq_ok(*st) == 2);
    // The key is still taken, and the log goes on after the old events.
    auto dup = make_op("op-b", 2);
    dup.idempotency_key = "key-a";
    auto res =
      commit_ok(*st, {create(dup), create(make_op("op-c", 3),
                                          {make_event("op-c", event_type::operation_created)})});
    CHECK(res.status[0] == write_status::duplicate_key);
    REQUIRE(res.events.size() == 1);
    CHECK(res.events[0].seq == 3);
  }
}

TEST_CASE("a seq is never reused, even after the newest events are deleted", "[storage][sqlite]") {
  temp_dir dir;
  auto path = dir.file("store.db");
  {
    auto st = open_ok(path);
    commit_ok(*st, {create(make_op("op-a"), {make_event("op-a", event_type::operation_created),
                                             make_event("op-a", event_type::step_started)})});
  }
  raw_sql(path, "DELETE FROM events WHERE seq = 2");
  auto st = open_ok(path);
  CHECK(last_seq_ok(*st) == 2);
  auto res = commit_ok(*st, {update(next(make_op("op-a"), op_state::in_progress, 1),
                                    {make_event("op-a", event_type::step_started)})});
  REQUIRE(res.events.size() == 1);
  CHECK(res.events[0].seq == 3);
}

TEST_CASE("opening migrates a new file once to the latest version", "[storage][sqlite]") {
  temp_dir dir;
  auto path = dir.file("store.db");
  REQUIRE(sqlite_schema_version() >= 1);
  open_ok(path);
  auto count = "SELECT COUNT(*) FROM schema_migrations";
  auto max = "SELECT MAX(version) FROM schema_migrations";
  CHECK(raw_sql(path, max) == sqlite_schema_version());
  CHECK(raw_sql(path, count) == sqlite_schema_version());
  auto applied = raw_sql(path, "SELECT applied_at FROM schema_migrations "
                               "WHERE version = 1");
  CHECK(applied > 0);
  open_ok(path);
  CHECK(raw_sql(path, count) == sqlite_schema_version());
  CHECK(raw_sql(path, "SELECT applied_at FROM schema_migrations "
                      "WHERE version = 1")
        == applied);
  CHECK(raw_sql(path, "SELECT COUNT(*) FROM sqlite_master WHERE name IN "
                      "('operations', 'events')")
        == 2);
}

TEST_CASE("a database from a newer binary is refused", "[storage][sqlite]") {
  temp_dir dir;
  auto path = dir.file("store.db");
  open_ok(path);
  auto newer = sqlite_schema_version() + 1;
  raw_sql(path, "INSERT INTO schema_migrations (version, applied_at) VALUES ("
                  + std::to_string(newer) + ", 0)");
  auto st = sqlite_store::open(path);
  REQUIRE_FALSE(st);
  CHECK(code_of(st.error()) == errc::store_failure);
  auto msg = message_of(st.error());
  INFO(msg);
  CHECK(contains(msg, "knows up to"));
  CHECK(contains(msg, std::to_string(newer)));
  CHECK(contains(msg, path));
  // Refusing left the file as it was.
  CHECK(raw_sql(path, "SELECT MAX(version) FROM schema_migrations") == newer);
}

TEST_CASE("reads and writes use their indexes", "[storage][sqlite]") {
  temp_dir dir;
  auto path = dir.file("store.db");
  open_ok(path);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  // Returns the query plan of `sql` as one line per step.
  auto plan = [db](const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    auto rc = sqlite3_prepare_v2(db, ("EXPLAIN QUERY PLAN " + sql).c_str(), -1, &stmt, nullptr);
    INFO(sqlite3_errmsg(db));
    REQUIRE(rc == SQLITE_OK);
    std::string out;
    while (sqlite3_step(stmt) == SQLITE_ROW)
      out += std::string{reinterpret_cast<const char*>(sqlite3_column_text(stmt, 3))} + "\n";
    sqlite3_finalize(stmt);
    return out;
  };
  using namespace sqlite_rows;
  auto list_sql = [](bool by_state, bool by_workflow, bool after, const char* parent = "",
                     const char* schedule = "") {
    list_filter f;
    if (by_state)
      f.state = op_state::pending;
    if (by_workflow)
      f.workflow = "w";
    f.parent = parent;
    f.schedule = schedule;
    return select_list_sql(f, after);
  };
  CHECK(contains(plan(select_active_sql), "USING INDEX operations_active"));
  CHECK(contains(plan(list_sql(false, false, false)), "operations_list_order"));
  CHECK(contains(plan(list_sql(false, false, true)),
                 "SEARCH operations USING INDEX operations_list_order"));
  CHECK(contains(plan(list_sql(true, false, true)),
                 "SEARCH operations USING INDEX operations_state_order"));
  CHECK(contains(plan(list_sql(false, true, false)), "USING INDEX operations_by_workflow"));
  CHECK(contains(plan(list_sql(false, true, true)), "USING INDEX operations_by_workflow"));
  auto both = plan(list_sql(true, true, false));
  CHECK((contains(both, "operations_state_order") || contains(both, "operations_by_workflow")));
  for (auto sql : {plan(list_sql(false, true, false)), plan(list_sql(true, false, false)), both})
    CHECK_FALSE(contains(sql, "TEMP B-TREE")); // no sorting
  CHECK(contains(plan(list_sql(false, false, true, "op-1")), "USING INDEX operations_parent"));
  CHECK(contains(plan(list_sql(false, false, false, "", "nightly")),
                 "USING INDEX operations_schedule"));
  CHECK(contains(plan(update_operation_sql), "sqlite_autoindex_operations_1 (id=?)"));
  sqlite3_close(db);
}

TEST_CASE("the file is in WAL mode", "[storage][sqlite]") {
  temp_dir dir;
  auto path = dir.file("store.db");
  open_ok(path);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
  CHECK(std::string{reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))} == "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST_CASE("damaged rows are store failures, not crashes", "[storage][sqlite]") {
  temp_dir dir;
  auto path = dir.file("store.db");
  {
    auto st = open_ok(path);
    commit_ok(*st,
              {create(make_op("op-a", 1)), create(make_op("op-b", 2)),
               create(make_op("op-c", 3), {make_event("op-c", event_type::operation_created)})});
  }
  raw_sql(path, "UPDATE operations SET data = '{not json' WHERE id = 'op-a'");
  raw_sql(path, "UPDATE operations SET steps = '[{\"name\": 5}]' "
                "WHERE id = 'op-b'");
  raw_sql(path, "UPDATE operations SET state = 'sleepy' WHERE id = 'op-c'");
  raw_sql(path, "UPDATE events SET extra = '[1]'");
  auto st = open_ok(path);
  for (auto id : {"op-a", "op-b", "op-c"}) {
    INFO(id);
    auto res = st->load(id);
    REQUIRE_FALSE(res);
    CHECK(code_of(res.error()) == errc::store_failure);
  }
  CHECK(contains(message_of(st->load("op-a").error()), "operation data"));
  CHECK(contains(message_of(st->load("op-b").error()), "steps"));
  list_filter f;
  CHECK_FALSE(st->list(f));
  CHECK_FALSE(st->load_active());
  auto evs = st->events_after(0, 10);
  REQUIRE_FALSE(evs);
  CHECK(contains(message_of(evs.error()), "event extra"));
}

TEST_CASE("a file that is not a database is a store failure", "[storage][sqlite]") {
  temp_dir dir;
  auto path = dir.file("garbage.db");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::string junk(8192, 'j');
    std::fwrite(junk.data(), 1, junk.size(), f);
    std::fclose(f);
  }
  auto st = sqlite_store::open(path);
  REQUIRE_FALSE(st);
  CHECK(code_of(st.error()) == errc::store_failure);
  CHECK(contains(message_of(st.error()), "not a database"));
}

TEST_CASE("open_store picks the backend from the URI", "[storage][sqlite]") {
  temp_dir dir;
  auto invalid = errc::invalid_argument;
  SECTION("sqlite: opens a file") {
    auto st = open_store("sqlite:" + dir.file("a.db"));
    REQUIRE(st);
    CHECK((*st)->backend() == "sqlite");
    commit_ok(**st, {create(make_op("op-a"))});
    load_ok(**st, "op-a");
  }
  SECTION("sqlite: takes synchronous=NORMAL and FULL") {
    for (auto opt : {"?synchronous=NORMAL", "?synchronous=full"}) {
      auto st = open_store("sqlite:" + dir.file("b.db") + opt);
      REQUIRE(st);
      commit_ok(**st, {create(make_op(std::string{"op-"} + opt))});
    }
  }
  SECTION("bad sqlite URIs") {
    for (std::string uri : {"sqlite:", "sqlite:?synchronous=FULL", "sqlite:x.db?synchronous=OFF",
                            "sqlite:x.db?cache=shared", "sqlite::memory:"}) {
      INFO(uri);
      auto st = open_store(uri);
      REQUIRE_FALSE(st);
      CHECK(code_of(st.error()) == invalid);
    }
  }
  SECTION("a file that cannot be opened is a store failure") {
    auto st = open_store("sqlite:" + dir.file("missing-dir/x.db"));
    REQUIRE_FALSE(st);
    CHECK(code_of(st.error()) == errc::store_failure);
    CHECK(contains(message_of(st.error()), "missing-dir"));
  }
  SECTION("PostgreSQL URIs reach the PostgreSQL backend") {
    // Nothing listens on port 1: the backend's connect fails at once.
    for (std::string uri : {"postgresql://127.0.0.1:1/stepwise", "postgres://u@127.0.0.1:1/db"}) {
      auto st = open_store(uri);
      REQUIRE_FALSE(st);
      CHECK(code_of(st.error()) == errc::store_failure);
      CHECK(contains(message_of(st.error()), "pg: connect"));
    }
  }
  SECTION("unknown schemes name the URI") {
    for (std::string uri : {"mysql://x", "", "stepwise.db", "SQLITE:x.db"}) {
      auto st = open_store(uri);
      REQUIRE_FALSE(st);
      CHECK(code_of(st.error()) == invalid);
      CHECK(contains(message_of(st.error()), "'" + uri + "'"));
    }
  }
}
