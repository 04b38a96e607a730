// Upgrades of the SQLite store: a database made by schema version 4 (a
// dump kept under fixtures/) opens with this build, migrated, every row
// readable and its sleeping operation resumed; a database from a newer
// build is refused, naming both versions, and its file stays byte for
// byte as it was.
#include <fstream>
#include <iterator>

#include <sqlite3.h>

#include <catch2/catch.hpp>

#include "storage/sqlite_migrations.hpp"
#include "storage/sqlite_store.hpp"
#include "tests/storage/store_backends.hpp"
#include "tests/storage/upgrade_support.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

void run_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* msg = nullptr;
  auto rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg);
  std::string why = msg != nullptr ? msg : "";
  sqlite3_free(msg);
  sqlite3_close(db);
  INFO(why);
  REQUIRE(rc == SQLITE_OK);
}

std::string bytes_of(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("a database of schema 4 opens, migrated, and its operations go on",
          "[storage][sqlite][upgrade]") {
  temp_dir dir;
  auto path = dir.file("old.db");
  run_sql(path, fixture_text("sqlite_schema_4.sql"));
  auto st = sqlite_store::open(path);
  if (!st)
    FAIL("open failed: " << message_of(st.error()));
  auto id = check_fixture_rows(**st);
  check_sleeper_resumes(std::move(*st), id);
}

TEST_CASE("a database of a newer schema is refused and left as it was",
          "[storage][sqlite][upgrade]") {
  temp_dir dir;
  auto path = dir.file("newer.db");
  auto newer = sqlite_schema_version() + 1;
  run_sql(path, fixture_text("sqlite_schema_4.sql")
                  + "INSERT INTO schema_migrations (version, applied_at) VALUES ("
                  + std::to_string(newer) + ", 0);");
  auto before = bytes_of(path);
  auto st = sqlite_store::open(path);
  REQUIRE_FALSE(st);
  auto msg = message_of(st.error());
  INFO(msg);
  CHECK_THAT(msg, Catch::Contains("schema version " + std::to_string(newer)));
  CHECK_THAT(msg, Catch::Contains("knows up to " + std::to_string(sqlite_schema_version())));
  CHECK_THAT(msg, Catch::Contains(path));
  CHECK(bytes_of(path) == before);
}
