// The PostgreSQL schema, one migration at a time.
#include "storage/pg_migration_list.hpp"

#include <iterator>

namespace stepwise {

namespace {

// Append-only: a released migration is never edited, a change is a new
// entry. Times are microseconds since the Unix epoch; JSON documents are
// TEXT because the store never looks inside them and jsonb parsing would
// cost on every write.
const pg_migration pg_migration_list[] = {
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
  {14, "labels", R"sql(
-- An operation's labels as JSON (NULL: none), shown with it; set at
-- creation.
ALTER TABLE operations ADD COLUMN labels TEXT;
-- One row per label: the list filtered by a label walks the index in the
-- list order (newest first) and reads only operations that have it. The
-- creation time is copied here for that order. The names differ from the
-- operations' columns, so that a join selects those unqualified.
CREATE TABLE operation_labels (
  label_operation_id TEXT COLLATE "C" NOT NULL,
  label_key          TEXT COLLATE "C" NOT NULL,
  label_value        TEXT COLLATE "C" NOT NULL,
  label_created_at   BIGINT NOT NULL,
  PRIMARY KEY (label_operation_id, label_key)
);
CREATE INDEX operation_labels_order ON operation_labels
  (label_key, label_value, label_created_at DESC, label_operation_id DESC);
-- Statement triggers keep the rows with their operations, whoever writes
-- them (the commit, retention's deletes): one insert or delete per
-- statement, not one per row.
CREATE FUNCTION stepwise_labels_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO operation_labels
    SELECT n.id, l.key, l.value, n.created_at
    FROM new_ops n, jsonb_each_text(n.labels::jsonb) AS l
    WHERE n.labels IS NOT NULL;
  RETURN NULL;
END $$;
CREATE FUNCTION stepwise_labels_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM operation_labels USING old_ops o
    WHERE o.labels IS NOT NULL AND label_operation_id = o.id;
  RETURN NULL;
END $$;
CREATE TRIGGER operation_labels_insert AFTER INSERT ON operations
  REFERENCING NEW TABLE AS new_ops FOR EACH STATEMENT EXECUTE FUNCTION stepwise_labels_insert();
CREATE TRIGGER operation_labels_delete AFTER DELETE ON operations
  REFERENCING OLD TABLE AS old_ops FOR EACH STATEMENT EXECUTE FUNCTION stepwise_labels_delete();
-- The list filtered by creation time reads operations_by_created; by
-- key, the unique index operations_idempotency_key.
)sql"},
  {15, "who sent a stored signal", R"sql(
-- Who asked (event::by) for a signal stored for another process: its
-- payload is the sender's JSON, with no room for it. A command keeps it
-- in its payload object, as migration 11's rows do.
ALTER TABLE operation_commands ADD COLUMN requested_by TEXT NOT NULL DEFAULT '';
)sql"},
};

} // namespace

const std::vector<pg_migration>& pg_migrations() {
  static const std::vector<pg_migration> all(std::begin(pg_migration_list),
                                             std::end(pg_migration_list));
  return all;
}

} // namespace stepwise
