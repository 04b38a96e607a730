#include "storage/sqlite_migrations.hpp"

#include <array>
#include <chrono>

#include "engine/errc.hpp"
#include "engine/time.hpp"
#include "storage/schema_version.hpp"

namespace stepwise {

namespace {

struct sqlite_migration {
  int64_t version;
  const char* name;
  const char* sql;
};

// Append-only: a released migration is never edited, since databases in
// the field already ran it. Change the schema with a new entry.
// Times are microseconds since the Unix epoch; JSON is stored as text.
constexpr std::array<sqlite_migration, 8> sqlite_migrations{{
  {1, "operations and events", R"sql(
CREATE TABLE operations (
  id               TEXT PRIMARY KEY NOT NULL,
  workflow         TEXT NOT NULL,
  workflow_version INTEGER NOT NULL,
  state            TEXT NOT NULL,
  input            TEXT NOT NULL,
  data             TEXT NOT NULL,
  steps            TEXT NOT NULL,
  error            TEXT NOT NULL DEFAULT '',
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  deadline         INTEGER,
  idempotency_key  TEXT,
  request_hash     TEXT NOT NULL DEFAULT '',
  revision         INTEGER NOT NULL,
  wake_at          INTEGER
);
-- An absent key is NULL, so any number of operations may have none.
CREATE UNIQUE INDEX operations_idempotency_key
  ON operations (idempotency_key) WHERE idempotency_key IS NOT NULL;
-- The list order, unfiltered and filtered by state.
CREATE INDEX operations_list_order ON operations (created_at DESC, id DESC);
CREATE INDEX operations_state_order
  ON operations (state, created_at DESC, id DESC);
-- Recovery reads the few live operations among many finished ones. A
-- query uses this index only if it repeats the condition term by term.
-- "<>" rather than NOT IN: SQLite evaluates an IN list through a temporary
-- table on every write of a row.
CREATE INDEX operations_active ON operations (created_at, id)
  WHERE state <> 'succeeded' AND state <> 'failed' AND state <> 'canceled';
-- AUTOINCREMENT: a seq is never reused, even after the newest rows go.
CREATE TABLE events (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  time         INTEGER NOT NULL,
  operation_id TEXT NOT NULL,
  type         TEXT NOT NULL,
  step         TEXT NOT NULL DEFAULT '',
  attempt      INTEGER NOT NULL DEFAULT 0,
  state        TEXT NOT NULL DEFAULT '',
  error        TEXT NOT NULL DEFAULT '',
  extra        TEXT
);
)sql"},
  {2, "signals, serialization keys, admission, pause", R"sql(
ALTER TABLE operations ADD COLUMN signals TEXT NOT NULL DEFAULT '[]';
ALTER TABLE operations ADD COLUMN queue_key TEXT;
ALTER TABLE operations ADD COLUMN admission TEXT;
ALTER TABLE operations ADD COLUMN blocked_by TEXT NOT NULL DEFAULT '';
ALTER TABLE operations ADD COLUMN pause_requested INTEGER NOT NULL DEFAULT 0;
-- Admission rounds read the live operations that hold or wait for a key
-- or a slot, oldest first.
CREATE INDEX operations_admission ON operations (created_at, id)
  WHERE admission IS NOT NULL AND state <> 'succeeded' AND state <> 'failed'
    AND state <> 'canceled';
)sql"},
  {3, "sink cursors", R"sql(
-- One row per sink of the outbox: how far it delivered the event log, and
-- the process holding it (lease_expires_at: µs, 0 when nobody holds it).
CREATE TABLE sink_cursors (
  name             TEXT PRIMARY KEY NOT NULL,
  cursor           INTEGER NOT NULL,
  holder           TEXT NOT NULL DEFAULT '',
  lease_expires_at INTEGER NOT NULL DEFAULT 0,
  delivered_at     INTEGER,
  last_error       TEXT NOT NULL DEFAULT '',
  failed_at        INTEGER,
  created_at       INTEGER NOT NULL
);
)sql"},
  {4, "schedules, parents", R"sql(
-- Set at creation: the operation whose step started this one, the schedule
-- whose fire did. Lists filtered by either read their index.
ALTER TABLE operations ADD COLUMN parent_id TEXT;
ALTER TABLE operations ADD COLUMN schedule_id TEXT;
CREATE INDEX operations_parent ON operations (parent_id, created_at DESC, id DESC)
  WHERE parent_id IS NOT NULL;
CREATE INDEX operations_schedule ON operations (schedule_id, created_at DESC, id DESC)
  WHERE schedule_id IS NOT NULL;
-- A schedule is read whole: its JSON (storage/schedule_row) and the
-- revision its writes check.
CREATE TABLE schedules (
  id       TEXT PRIMARY KEY NOT NULL,
  revision INTEGER NOT NULL,
  body     TEXT NOT NULL
);
)sql"},
  {5, "retention", R"sql(
-- Retention (engine/retention_store.hpp) removes an operation's events
-- by operation and checks that no sink still needs one of them.
CREATE INDEX events_by_operation ON events (operation_id, seq);
-- Ended operations, oldest write first: what retention removes. The query
-- repeats the condition term by term, or SQLite does not use the index.
CREATE INDEX operations_ended ON operations (updated_at, id)
  WHERE state = 'succeeded' OR state = 'failed' OR state = 'canceled';
-- The deprovisionings that name a provisioning (keep it while one runs).
CREATE INDEX operations_deprovisioning
  ON operations (json_extract(input, '$.provision_operation_id'))
  WHERE workflow = 'deprovision_runtime';
-- One row: the highest event seq retention removed (0: none).
CREATE TABLE retention (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  horizon INTEGER NOT NULL
);
INSERT INTO retention VALUES (1, 0);
)sql"},
  {6, "operations by workflow", R"sql(
-- The list filtered by workflow: without it, a workflow few operations
-- have walked the whole list order (152 ms at 1,000,000 operations).
CREATE INDEX operations_by_workflow ON operations (workflow, created_at DESC, id DESC);
)sql"},
  {7, "workflows defined as data", R"sql(
-- Every version of every workflow defined through the API: the server
-- builds them at start (engine/workflow_json.hpp).
CREATE TABLE workflow_definitions (
  name       TEXT NOT NULL,
  version    INTEGER NOT NULL,
  body       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (name, version)
);
)sql"},
  {8, "labels", R"sql(
-- An operation's labels as JSON (NULL: none), shown with it; set at
-- creation.
ALTER TABLE operations ADD COLUMN labels TEXT;
-- One row per label: the list filtered by a label walks the index in the
-- list order (newest first) and reads only operations that have it. The
-- creation time is copied here for that order. The names differ from the
-- operations' columns, so that a join selects those unqualified.
CREATE TABLE operation_labels (
  label_operation_id TEXT NOT NULL,
  label_key          TEXT NOT NULL,
  label_value        TEXT NOT NULL,
  label_created_at   INTEGER NOT NULL,
  PRIMARY KEY (label_operation_id, label_key)
) WITHOUT ROWID;
CREATE INDEX operation_labels_order ON operation_labels
  (label_key, label_value, label_created_at DESC, label_operation_id DESC);
-- Triggers keep the rows with their operation, whoever writes it (the
-- commit, retention's deletes), so that no write path can forget them.
CREATE TRIGGER operation_labels_insert AFTER INSERT ON operations
  WHEN NEW.labels IS NOT NULL
BEGIN
  INSERT INTO operation_labels
    SELECT NEW.id, j.key, j.value, NEW.created_at FROM json_each(NEW.labels) AS j;
END;
CREATE TRIGGER operation_labels_delete AFTER DELETE ON operations
  WHEN OLD.labels IS NOT NULL
BEGIN
  DELETE FROM operation_labels WHERE label_operation_id = OLD.id;
END;
-- The list filtered by creation time reads operations_list_order; by key,
-- the unique index operations_idempotency_key.
)sql"},
}};

constexpr bool numbered_from_one() {
  for (size_t i = 0; i < sqlite_migrations.size(); ++i)
    if (sqlite_migrations[i].version != static_cast<int64_t>(i + 1))
      return false;
  return true;
}

static_assert(numbered_from_one(), "migrations are numbered 1, 2, 3, ...");

// Runs `sql`, which yields one integer.
caf::expected<int64_t> query_int(sqlite_connection& conn, const char* sql, const char* what) {
  auto stmt = conn.prepare(sql);
  if (!stmt)
    return std::move(stmt.error());
  statement_reset guard{**stmt};
  auto rc = (*stmt)->step();
  if (rc != SQLITE_ROW)
    return conn.failure(what, rc);
  return (*stmt)->int64(0);
}

// Returns the schema version, or the refusal of one newer than this binary.
caf::expected<int64_t> known_version(sqlite_connection& conn, const std::string& path) {
  auto have = query_int(conn, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
                        "reading the schema version");
  if (have && *have > sqlite_schema_version())
    return newer_schema_error(path, *have, sqlite_schema_version());
  return have;
}

caf::error apply(sqlite_connection& conn, const sqlite_migration& m) {
  auto what = "applying migration " + std::to_string(m.version) + " (" + m.name + ")";
  if (auto err = conn.exec(m.sql, what))
    return err;
  auto stmt = conn.prepare("INSERT INTO schema_migrations (version, "
                           "applied_at) VALUES (?1, ?2)");
  if (!stmt)
    return std::move(stmt.error());
  statement_reset guard{**stmt};
  auto now = std::chrono::time_point_cast<duration>(std::chrono::system_clock::now());
  (*stmt)->bind(1, m.version);
  (*stmt)->bind(2, to_micros(now));
  auto rc = (*stmt)->step();
  if (rc != SQLITE_DONE)
    return conn.failure("recording " + what, rc);
  return caf::error{};
}

caf::error migrate_in_transaction(sqlite_connection& conn, const std::string& path) {
  if (auto err = conn.exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
                           "version INTEGER PRIMARY KEY, "
                           "applied_at INTEGER NOT NULL)",
                           "creating schema_migrations"))
    return err;
  auto have = known_version(conn, path);
  if (!have)
    return std::move(have.error());
  for (auto& m : sqlite_migrations)
    if (m.version > *have)
      if (auto err = apply(conn, m))
        return err;
  return caf::error{};
}

} // namespace

int64_t sqlite_schema_version() {
  return sqlite_migrations.back().version;
}

caf::error refuse_newer_schema(sqlite_connection& conn, const std::string& path) {
  auto tables = query_int(conn,
                          "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                          "AND name = 'schema_migrations'",
                          "looking for schema_migrations");
  if (!tables)
    return std::move(tables.error());
  if (*tables == 0)
    return caf::error{}; // a new file: migrate creates everything
  auto have = known_version(conn, path);
  return have ? caf::error{} : std::move(have.error());
}

caf::error migrate(sqlite_connection& conn, const std::string& path) {
  // IMMEDIATE: two processes opening a new file at once must not both
  // decide to create the schema.
  if (auto err = conn.exec("BEGIN IMMEDIATE", "starting the migration"))
    return err;
  if (auto err = migrate_in_transaction(conn, path)) {
    static_cast<void>(conn.exec("ROLLBACK", "rolling back the migration"));
    return err;
  }
  return conn.exec("COMMIT", "committing the migration");
}

} // namespace stepwise
