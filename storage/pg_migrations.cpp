#include "storage/pg_migrations.hpp"

#include <iterator>
#include <string>

#include "engine/errc.hpp"
#include "storage/pg_connection.hpp"
#include "storage/schema_version.hpp"

namespace stepwise {

namespace {

struct pg_migration {
  int version;
  const char* name;
  const char* sql;
};

// Append-only: a released migration is never edited, a change is a new
// entry. Times are microseconds since the Unix epoch; JSON documents are
// TEXT because the store never looks inside them and jsonb parsing would
// cost on every write.
constexpr pg_migration pg_migrations[] = {
  {1, "operations and events", R"sql(
CREATE TABLE operations (
  id TEXT PRIMARY KEY,
  workflow TEXT NOT NULL,
  workflow_version INTEGER NOT NULL,
  state TEXT NOT NULL,
  input TEXT NOT NULL,
  data TEXT NOT NULL,
  steps TEXT NOT NULL,
  error TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  deadline BIGINT,
  idempotency_key TEXT UNIQUE,
  request_hash TEXT NOT NULL,
  revision BIGINT NOT NULL,
  wake_at BIGINT
) WITH (fillfactor = 80);
CREATE INDEX operations_by_created ON operations (created_at, id);
CREATE INDEX operations_by_state ON operations (state, created_at, id);
CREATE INDEX operations_active ON operations (created_at, id)
  WHERE state NOT IN ('succeeded', 'failed', 'canceled');
CREATE TABLE events (
  seq BIGINT PRIMARY KEY,
  time BIGINT NOT NULL,
  operation_id TEXT NOT NULL,
  type TEXT NOT NULL,
  step TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  state TEXT NOT NULL,
  error TEXT NOT NULL,
  extra TEXT
);
CREATE TABLE event_counter (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last_seq BIGINT NOT NULL
);
INSERT INTO event_counter VALUES (1, 0);
)sql"},
  {2, "leases", R"sql(
CREATE FUNCTION stepwise_now_us() RETURNS BIGINT LANGUAGE sql VOLATILE
  AS $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::BIGINT $$;
CREATE TABLE engine_owners (
  owner TEXT PRIMARY KEY,
  started_at BIGINT NOT NULL,
  renewed_at BIGINT NOT NULL,
  lease_expires_at BIGINT NOT NULL,
  ended BOOLEAN NOT NULL DEFAULT false
);
ALTER TABLE operations ADD COLUMN owner TEXT;
CREATE INDEX operations_active_by_owner ON operations (owner)
  WHERE state NOT IN ('succeeded', 'failed', 'canceled');
)sql"},
  {3, "signals, serialization keys, admission, pause", R"sql(
ALTER TABLE operations ADD COLUMN signals TEXT NOT NULL DEFAULT '[]',
  ADD COLUMN queue_key TEXT, ADD COLUMN admission TEXT,
  ADD COLUMN blocked_by TEXT NOT NULL DEFAULT '',
  ADD COLUMN pause_requested INTEGER NOT NULL DEFAULT 0;
-- Admission rounds read the live operations that hold or wait for a key
-- or a slot, oldest first.
CREATE INDEX operations_admission ON operations (created_at, id)
  WHERE admission IS NOT NULL AND state NOT IN ('succeeded', 'failed', 'canceled');
)sql"},
  {4, "sink cursors", R"sql(
CREATE TABLE sink_cursors (
  name TEXT PRIMARY KEY,
  cursor BIGINT NOT NULL,
  holder TEXT NOT NULL DEFAULT '',
  lease_expires_at BIGINT NOT NULL DEFAULT 0,
  delivered_at BIGINT,
  last_error TEXT NOT NULL DEFAULT '',
  failed_at BIGINT,
  created_at BIGINT NOT NULL
);
)sql"},
  {5, "commit marks", R"sql(
-- One row per writer connection: the token of its last commit, written in
-- the commit's transaction, so that a writer whose connection broke during
-- COMMIT can tell whether it was written.
CREATE TABLE commit_marks (
  writer TEXT PRIMARY KEY,
  token BIGINT NOT NULL,
  last_seq BIGINT NOT NULL,
  at BIGINT NOT NULL
);
)sql"},
  {6, "process leases", R"sql(
-- A row per process sharing the database, with its lease: the name says so.
ALTER TABLE engine_owners RENAME TO process_leases;
)sql"},
  {7, "schedules, parents", R"sql(
-- Set at creation: the operation whose step started this one, the schedule
-- whose fire did. Lists filtered by either read their index.
ALTER TABLE operations ADD COLUMN parent_id TEXT, ADD COLUMN schedule_id TEXT;
CREATE INDEX operations_parent ON operations (parent_id, created_at DESC, id DESC)
  WHERE parent_id IS NOT NULL;
CREATE INDEX operations_schedule ON operations (schedule_id, created_at DESC, id DESC)
  WHERE schedule_id IS NOT NULL;
-- A schedule is read whole: its JSON (storage/schedule_row) and the
-- revision its writes check.
CREATE TABLE schedules (
  id TEXT PRIMARY KEY,
  revision BIGINT NOT NULL,
  body TEXT NOT NULL
);
)sql"},
  {8, "retention", R"sql(
-- Retention (engine/retention_store.hpp) removes an operation's events
-- by operation and checks that no sink still needs one of them.
CREATE INDEX events_by_operation ON events (operation_id, seq);
-- Ended operations, oldest write first: what retention removes.
CREATE INDEX operations_ended ON operations (updated_at, id)
  WHERE state = 'succeeded' OR state = 'failed' OR state = 'canceled';
-- The deprovisionings that name a provisioning (keep it while one runs).
-- json, not jsonb: it parses only these rows' input, and accepts any
-- text the store writes.
CREATE INDEX operations_deprovisioning
  ON operations ((input::json ->> 'provision_operation_id'))
  WHERE workflow = 'deprovision_runtime';
-- One row: the highest event seq retention removed (0: none).
CREATE TABLE retention (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  horizon BIGINT NOT NULL
);
INSERT INTO retention VALUES (1, 0);
)sql"},
  {9, "operations by workflow", R"sql(
-- The list filtered by workflow: without it, a workflow few operations
-- have walked the whole list order.
CREATE INDEX operations_by_workflow ON operations (workflow, created_at DESC, id DESC);
)sql"},
  {10, "fewer index entries per write", R"sql(
-- Index entries were most of the database's work per checkpoint (a
-- profile of W1: half its CPU in btree inserts), and every write of a
-- running operation changed an indexed column (state, updated_at), so
-- each one added an entry to every index. Now no index reads state or
-- updated_at: an operation's end has columns of its own (ended_at,
-- end_state; both null while it runs), set by the write that ends it, and
-- "live" means ended_at IS NULL. The writes between creation and end
-- then stay on their page without index entries (HOT). A row doubles as
-- its steps run (W1: 0.5 to 1 KB): pages filled to 30 % at creation leave
-- that room (at 50 % a third of the writes still left their page).
ALTER TABLE operations ADD COLUMN ended_at BIGINT, ADD COLUMN end_state TEXT COLLATE "C";
UPDATE operations SET ended_at = updated_at, end_state = state
  WHERE state = 'succeeded' OR state = 'failed' OR state = 'canceled';
DROP INDEX operations_ended, operations_by_state, operations_active, operations_active_by_owner,
  operations_admission;
CREATE INDEX operations_ended ON operations (ended_at, id) WHERE ended_at IS NOT NULL;
CREATE INDEX operations_by_end_state ON operations (end_state, created_at, id)
  WHERE end_state IS NOT NULL;
CREATE INDEX operations_active ON operations (created_at, id) WHERE ended_at IS NULL;
CREATE INDEX operations_active_by_owner ON operations (owner) WHERE ended_at IS NULL;
CREATE INDEX operations_admission ON operations (created_at, id)
  WHERE admission IS NOT NULL AND ended_at IS NULL;
ALTER TABLE operations SET (fillfactor = 30);
-- Operations without an idempotency key (most) get no entry in its index.
ALTER TABLE operations DROP CONSTRAINT operations_idempotency_key_key;
CREATE UNIQUE INDEX operations_idempotency_key ON operations (idempotency_key)
  WHERE idempotency_key IS NOT NULL;
-- Ids, keys and names compare byte by byte: the database's locale (its
-- strcoll) only slowed every comparison in their indexes. Their order
-- matters only as a tie-break of equal times, and is the same for the
-- ASCII ids the engine makes.
ALTER TABLE operations ALTER COLUMN id TYPE TEXT COLLATE "C",
  ALTER COLUMN idempotency_key TYPE TEXT COLLATE "C",
  ALTER COLUMN workflow TYPE TEXT COLLATE "C",
  ALTER COLUMN owner TYPE TEXT COLLATE "C",
  ALTER COLUMN parent_id TYPE TEXT COLLATE "C",
  ALTER COLUMN schedule_id TYPE TEXT COLLATE "C";
ALTER TABLE events ALTER COLUMN operation_id TYPE TEXT COLLATE "C";
)sql"},
  {11, "commands between processes, what each process is", R"sql(
-- Control requests (signal, cancel, pause, resume, retry) that a process
-- took for an operation another process drives, for that owner to carry
-- out (engine/command_store.hpp). A signal's id is stored once per
-- operation here as in the operation's own record.
CREATE TABLE operation_commands (
  seq BIGSERIAL PRIMARY KEY,
  operation_id TEXT COLLATE "C" NOT NULL,
  kind TEXT NOT NULL,
  signal_name TEXT NOT NULL,
  signal_id TEXT COLLATE "C" NOT NULL,
  payload TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX operation_commands_by_operation ON operation_commands (operation_id);
CREATE UNIQUE INDEX operation_commands_signal_id ON operation_commands (operation_id, signal_id)
  WHERE signal_id <> '';
-- What GET /api/v1/cluster shows of each process: where it answers and
-- which build it runs.
ALTER TABLE process_leases ADD COLUMN url TEXT NOT NULL DEFAULT '',
  ADD COLUMN version TEXT NOT NULL DEFAULT '';
)sql"},
  {12, "how many operations each process drives", R"sql(
-- Published by each process at its lease tick, so that every process can
-- work out its share of the operations without counting them
-- (engine/share.hpp).
ALTER TABLE process_leases ADD COLUMN held BIGINT NOT NULL DEFAULT 0;
)sql"},
  {13, "workflows defined as data", R"sql(
-- Every version of every workflow defined through the API: each server
-- builds them at start (engine/workflow_json.hpp).
CREATE TABLE workflow_definitions (
  name       TEXT NOT NULL,
  version    INTEGER NOT NULL,
  body       TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (name, version)
);
)sql"},
};

// Rolls back whatever a failed step left open; the error to report is the
// one that caused it.
caf::error abort_with(pg_connection& conn, caf::error err) {
  auto ignored = conn.exec("ROLLBACK", "rollback");
  static_cast<void>(ignored);
  return err;
}

caf::error apply(pg_connection& conn, const pg_migration& m) {
  auto what = "migration " + std::to_string(m.version) + " (" + m.name + ")";
  if (auto r = conn.exec("BEGIN", what); !r)
    return std::move(r.error());
  if (auto r = conn.exec(m.sql, what); !r)
    return abort_with(conn, std::move(r.error()));
  pg_params p{2};
  p.add(static_cast<int32_t>(m.version));
  p.add(m.name);
  auto rec = conn.exec("INSERT INTO schema_migrations (version, name, "
                       "applied_at) VALUES ($1, $2, (extract(epoch FROM "
                       "clock_timestamp()) * 1000000)::BIGINT)",
                       p, what);
  if (!rec)
    return abort_with(conn, std::move(rec.error()));
  if (auto r = conn.exec("COMMIT", what); !r)
    return std::move(r.error());
  return caf::none;
}

// Reads the schema version; refuses one newer than this build.
caf::expected<int64_t> known_version(pg_connection& conn) {
  auto cur =
    conn.exec("SELECT coalesce(max(version), 0) FROM schema_migrations", "read schema version");
  if (!cur)
    return std::move(cur.error());
  auto have = cur->int64(0, 0);
  if (have > pg_schema_version())
    return newer_schema_error("pg", have, pg_schema_version());
  return have;
}

// Processes of the version the database is at may be running: they
// prepared their statements against its schema and would fail, or write
// wrong rows, once it changed under them. A live lease (not ended, not
// expired on the database clock) names such a process. Leases exist from
// migration 2 on; migration 6 renamed their table.
caf::error refuse_live_processes(pg_connection& conn, int64_t have, int target) {
  if (have < 2)
    return caf::none;
  std::string sql = "SELECT owner FROM ";
  sql += have >= 6 ? "process_leases" : "engine_owners";
  sql += " WHERE NOT ended AND lease_expires_at > stepwise_now_us() ORDER BY owner";
  auto live = conn.exec(sql.c_str(), "read live leases before migrating");
  if (!live)
    return std::move(live.error());
  auto n = live->rows();
  if (n == 0)
    return caf::none;
  std::string names;
  for (int i = 0; i < n && i < 5; ++i)
    names += (i > 0 ? ", " : "") + std::string{live->text(i, 0)};
  if (n > 5)
    names += ", ...";
  return make_error(errc::store_failure,
                    "pg: the database is at schema version " + std::to_string(have)
                      + " and this stepwise would migrate it to " + std::to_string(target)
                      + ", but " + std::to_string(n)
                      + " process(es) of the older version hold live leases on it (" + names
                      + "): stop them first (a crashed one's lease expires after its "
                        "--lease-ttl), then start this one; nothing was written");
}

caf::error migrate_locked(pg_connection& conn, int target) {
  auto made = conn.exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
                        "version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                        "applied_at BIGINT NOT NULL)",
                        "create schema_migrations");
  if (!made)
    return std::move(made.error());
  auto known = known_version(conn);
  if (!known)
    return std::move(known.error());
  auto have = *known;
  if (have > 0 && have < target)
    if (auto err = refuse_live_processes(conn, have, target))
      return err;
  for (auto& m : pg_migrations)
    if (m.version > have && m.version <= target)
      if (auto err = apply(conn, m))
        return err;
  return caf::none;
}

} // namespace

int pg_schema_version() {
  return std::prev(std::end(pg_migrations))->version;
}

caf::error pg_migrate(pg_connection& conn, int target) {
  auto schema = conn.exec("SELECT current_schema() IS NOT NULL", "read current schema");
  if (!schema)
    return std::move(schema.error());
  if (schema->text(0, 0) != "t")
    return make_error(errc::store_failure, "pg: no schema of the search_path exists");
  // Keyed by schema so that test schemas of one database migrate in
  // parallel; 0x5753 ("SW") keeps our keys apart from other programs'.
  constexpr auto lock_sql = "SELECT pg_advisory_lock(22355, "
                            "hashtext(current_schema()))";
  constexpr auto unlock_sql = "SELECT pg_advisory_unlock(22355, "
                              "hashtext(current_schema()))";
  if (auto r = conn.exec(lock_sql, "lock for migration"); !r)
    return std::move(r.error());
  auto err = migrate_locked(conn, target);
  // A failed unlock only matters while the session lives; the caller
  // drops a failed connection, which releases the lock.
  auto unlocked = conn.exec(unlock_sql, "unlock after migration");
  if (!err && !unlocked)
    return std::move(unlocked.error());
  return err;
}

caf::error pg_check_version(pg_connection& conn) {
  // Shared: joins do not wait for each other, only for a migration, which
  // holds the lock exclusively from its check of the leases to its end.
  constexpr auto lock_sql = "SELECT pg_advisory_xact_lock_shared(22355, "
                            "hashtext(current_schema()))";
  if (auto r = conn.exec(lock_sql, "wait for a migration"); !r)
    return std::move(r.error());
  auto known = known_version(conn);
  return known ? caf::none : std::move(known.error());
}

} // namespace stepwise
