// Upgrades of the PostgreSQL store: a database made by schema version 7 (a
// dump kept under fixtures/) opens with this build, migrated, every row
// readable and its sleeping operation taken over and resumed; a database
// from a newer build is refused, naming both versions, with nothing
// written; and a migration waits for the processes of the older version
// to stop (their live leases refuse it), and a process of the older
// version never joins a migrated schema.
#include <catch2/catch.hpp>

#include "storage/pg_connection.hpp"
#include "storage/pg_migrations.hpp"
#include "tests/storage/pg_test_schema.hpp"
#include "tests/storage/upgrade_support.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

void load_fixture(const pg_test_schema& schema, const std::string& extra = "") {
  schema.admin("SET search_path TO " + schema.name() + ";\n" + fixture_text("pg_schema_7.sql")
               + extra);
}

/// Every table of the schema with its row count, and the schema versions,
/// as one line: what "nothing was written" compares.
std::string contents(const pg_test_schema& schema) {
  auto counts =
    schema.admin("SELECT string_agg(table_name || '=' || (xpath('/row/c/text()', query_to_xml("
                 "'SELECT count(*) AS c FROM ' || table_schema || '.' || table_name, false, true, "
                 "'')))[1]::text, ' ' ORDER BY table_name) FROM information_schema.tables "
                 "WHERE table_schema = '"
                 + schema.name() + "'");
  return counts + " "
         + schema.admin("SELECT string_agg(version::text, ',' ORDER BY version) FROM "
                        + schema.name() + ".schema_migrations");
}

} // namespace

TEST_CASE("pg: a database of schema 7 opens, migrated, and its operations go on",
          "[storage][pg][upgrade]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  load_fixture(*schema);
  auto st = pg_store::open(schema->uri());
  if (!st)
    FAIL("open failed: " << message_of(st.error()));
  CHECK(schema->admin("SELECT max(version) FROM " + schema->name() + ".schema_migrations")
        == std::to_string(pg_schema_version()));
  auto id = check_fixture_rows(**st);
  // The lease of the process that made it expired long ago: this engine
  // takes its sleeping operation over.
  check_sleeper_resumes(std::move(*st), id);
}

TEST_CASE("pg: a database of a newer schema is refused, nothing written",
          "[storage][pg][upgrade]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto newer = pg_schema_version() + 1;
  load_fixture(*schema, "INSERT INTO schema_migrations VALUES (" + std::to_string(newer)
                          + ", 'from the future', 0);");
  auto before = contents(*schema);
  auto st = pg_store::open(schema->uri());
  REQUIRE_FALSE(st);
  auto msg = message_of(st.error());
  INFO(msg);
  CHECK_THAT(msg, Catch::Contains("schema version " + std::to_string(newer)));
  CHECK_THAT(msg, Catch::Contains("knows up to " + std::to_string(pg_schema_version())));
  CHECK(contents(*schema) == before);
}

TEST_CASE("pg: a migration waits until no older process holds a live lease",
          "[storage][pg][upgrade]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto older = pg_schema_version() - 1;
  {
    auto conn = pg_connection::open(schema->uri());
    REQUIRE(conn);
    REQUIRE_FALSE(pg_migrate(**conn, older));
  }
  // A process of the older version, running: its lease is live.
  schema->admin("INSERT INTO " + schema->name()
                + ".process_leases VALUES ('old-host:42:abc', 0, 0, "
                + "(extract(epoch FROM clock_timestamp()) * 1000000)::BIGINT + 600000000, false)");
  auto before = contents(*schema);
  auto st = pg_store::open(schema->uri());
  REQUIRE_FALSE(st);
  auto msg = message_of(st.error());
  INFO(msg);
  CHECK_THAT(msg, Catch::Contains("old-host:42:abc"));
  CHECK_THAT(msg, Catch::Contains("schema version " + std::to_string(older)));
  CHECK_THAT(msg, Catch::Contains("migrate it to " + std::to_string(pg_schema_version())));
  CHECK(contents(*schema) == before);
  // It stopped (its shutdown ends its lease): the migration runs.
  schema->admin("UPDATE " + schema->name() + ".process_leases SET ended = true");
  auto now = pg_store::open(schema->uri());
  if (!now)
    FAIL("open failed: " << message_of(now.error()));
  CHECK(schema->admin("SELECT max(version) FROM " + schema->name() + ".schema_migrations")
        == std::to_string(pg_schema_version()));
}

TEST_CASE("pg: a process does not join once a newer version migrated the schema",
          "[storage][pg][upgrade]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto st = schema->open();
  // A newer stepwise migrates between this process's open and its join.
  auto newer = pg_schema_version() + 1;
  schema->admin("INSERT INTO " + schema->name() + ".schema_migrations VALUES ("
                + std::to_string(newer) + ", 'from the future', 0)");
  auto err = st->join("older:1:a", std::chrono::seconds(10));
  REQUIRE(err);
  CHECK_THAT(message_of(err), Catch::Contains("schema version " + std::to_string(newer)));
  CHECK(schema->admin("SELECT count(*) FROM " + schema->name() + ".process_leases") == "0");
}
