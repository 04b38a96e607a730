// `backup_sqlite`: a copy taken while another connection commits between
// its steps is the database as of the copy's start, and the copy ends;
// what it refuses, and that a refused or failed copy leaves nothing.

#include <sys/stat.h>

#include <fstream>

#include <sqlite3.h>

#include <catch2/catch.hpp>

#include "storage/sqlite_backup.hpp"
#include "storage/sqlite_store.hpp"
#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

std::shared_ptr<sqlite_store> open_backup_store(const std::string& path) {
  auto st = sqlite_store::open(path);
  if (!st)
    FAIL("open failed: " << message_of(st.error()));
  return std::move(*st);
}

void create_op(store& st, int i) {
  auto id = "op-" + std::to_string(i);
  auto op = make_op(id, i);
  auto res = st.commit({create(op, {make_event(id, event_type::operation_created, i)})});
  REQUIRE(res);
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string error_of(const caf::expected<sqlite_backup_report>& rep) {
  REQUIRE(!rep);
  return message_of(rep.error());
}

} // namespace

TEST_CASE("a backup under commits between its steps copies one instant and ends",
          "[storage][sqlite][backup]") {
  temp_dir dir;
  auto db = dir.file("src.db");
  auto to = dir.file("copy.db");
  auto st = open_backup_store(db);
  constexpr int before = 300;
  for (int i = 0; i < before; ++i)
    create_op(*st, i);
  // A commit after every step: a copy that followed the source would
  // start over after each one and never end.
  int next = before;
  sqlite_backup_options opts;
  opts.pages_per_step = 1;
  opts.after_step = [&](int64_t) { create_op(*st, next++); };
  auto rep = backup_sqlite(db, to, opts);
  REQUIRE(rep);
  CHECK(rep->steps > 2);
  CHECK(next - before == rep->steps - 1);
  CHECK(rep->operations == before);
  CHECK(rep->events == before);
  CHECK(rep->pages > 2);
  struct stat sz {};
  REQUIRE(::stat(to.c_str(), &sz) == 0);
  CHECK(rep->bytes == sz.st_size);
  CHECK_FALSE(file_exists(to + ".partial"));
  auto copy = open_backup_store(to);
  for (int i = 0; i < before; ++i) {
    auto op = copy->load("op-" + std::to_string(i));
    REQUIRE(op);
    CHECK(op->has_value());
  }
  auto later = copy->load("op-" + std::to_string(before));
  REQUIRE(later);
  CHECK_FALSE(later->has_value());
  auto seq = copy->last_seq();
  REQUIRE(seq);
  CHECK(*seq == before);
  // The source went on: every commit made during the copy is there.
  auto last = st->load("op-" + std::to_string(next - 1));
  REQUIRE(last);
  CHECK(last->has_value());
}

TEST_CASE("a backup refuses what it must not copy or overwrite, and leaves nothing then",
          "[storage][sqlite][backup]") {
  temp_dir dir;
  auto db = dir.file("src.db");
  auto to = dir.file("copy.db");
  {
    auto st = open_backup_store(db);
    create_op(*st, 1);
  }
  SECTION("no database") {
    auto out = error_of(backup_sqlite(dir.file("missing.db"), to));
    CHECK(out.find("no database at " + dir.file("missing.db")) != std::string::npos);
    CHECK_FALSE(file_exists(dir.file("missing.db")));
  }
  SECTION("a file that is no SQLite database") {
    std::ofstream(dir.file("text.db")) << std::string(8192, 'x');
    auto out = error_of(backup_sqlite(dir.file("text.db"), to));
    CHECK(out.find("is not a SQLite database") != std::string::npos);
  }
  SECTION("a SQLite database that is not stepwise's") {
    auto other = dir.file("other.db");
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open(other.c_str(), &h) == SQLITE_OK);
    REQUIRE(sqlite3_exec(h, "CREATE TABLE t (x)", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(h);
    auto out = error_of(backup_sqlite(other, to));
    CHECK(out.find("is not a stepwise database") != std::string::npos);
  }
  SECTION("an existing copy, replaced with force only") {
    std::ofstream(to) << "keep me";
    auto out = error_of(backup_sqlite(db, to));
    CHECK(out.find("exists: pass --force") != std::string::npos);
    std::string kept;
    std::getline(std::ifstream(to), kept);
    CHECK(kept == "keep me");
    sqlite_backup_options opts;
    opts.force = true;
    auto rep = backup_sqlite(db, to, opts);
    REQUIRE(rep);
    CHECK(rep->operations == 1);
  }
  SECTION("the database itself, even with force") {
    sqlite_backup_options opts;
    opts.force = true;
    auto out = error_of(backup_sqlite(db, db, opts));
    CHECK(out.find("is the database itself") != std::string::npos);
  }
  SECTION("a directory that does not exist") {
    auto out = error_of(backup_sqlite(db, dir.file("nowhere/copy.db")));
    CHECK(out.find("nowhere/copy.db.partial") != std::string::npos);
  }
  CHECK_FALSE(file_exists(to + ".partial"));
}
