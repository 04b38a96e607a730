#include "storage/pg_statements.hpp"

#include "storage/event_row.hpp"
#include "storage/op_row.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_rows.hpp"

namespace stepwise {

namespace {

#define SW_TERMINAL "('succeeded', 'failed', 'canceled')"
// The end of an operation written in state `u.state` at `u.updated_at`
// (migration 10): null while it runs.
#define SW_ENDED_AT "CASE WHEN u.state IN " SW_TERMINAL " THEN u.updated_at END"
#define SW_END_STATE "CASE WHEN u.state IN " SW_TERMINAL " THEN u.state END"

// Rows arrive as one array per column (see pg_columns.hpp). Inserting in
// array order makes the first of two creates with one key win, as it would
// one statement per item.
#define SW_CREATE_MANY(OWNER_COL, OWNER_VAL)                                                       \
  "INSERT INTO operations (" STEPWISE_OP_COLUMNS ", ended_at, end_state" OWNER_COL ") "            \
  "SELECT " STEPWISE_OP_COLUMNS ", " SW_ENDED_AT ", " SW_END_STATE OWNER_VAL " "                   \
  "FROM unnest($1::TEXT[], $2::TEXT[], $3::INTEGER[], $4::TEXT[], "                                \
  "$5::TEXT[], $6::TEXT[], $7::TEXT[], $8::TEXT[], $9::BIGINT[], "                                 \
  "$10::BIGINT[], $11::BIGINT[], $12::TEXT[], $13::TEXT[], $14::BIGINT[], "                        \
  "$15::BIGINT[], $16::TEXT[], $17::TEXT[], $18::TEXT[], $19::TEXT[], "                            \
  "$20::INTEGER[], $21::TEXT[], $22::TEXT[], $23::TEXT[]) "                                        \
  "WITH ORDINALITY AS u(" STEPWISE_OP_COLUMNS ", ord) "                                            \
  "ORDER BY u.ord ON CONFLICT DO NOTHING RETURNING id"

// The ids of one statement's rows are distinct (pg_commit splits the batch
// where an id repeats), so each row is matched once. Input, creation time,
// idempotency key, request hash and serialization key are fixed at
// creation; the admission columns belong to admission rounds, except that
// an operation taking part in admission that leaves an end state (a retry)
// queues again (the right-hand sides read the row as it was).
#define SW_ENDED                                                                                   \
  "o.state IN " SW_TERMINAL " AND o.admission IS NOT NULL "                                        \
  "AND u.state NOT IN " SW_TERMINAL
// A write that carries out a stored command (`cmd`, 0: none) happens only
// while the command is stored: two processes may each read the command of
// an operation that ended, one refuse it (and delete it) while the other
// retries the operation and carries it out. The row lock makes a
// concurrent delete wait for this transaction, which deletes it.
#define SW_COMMAND_KEPT                                                                            \
  "(u.cmd = 0 OR EXISTS (SELECT 1 FROM operation_commands c WHERE c.seq = u.cmd FOR SHARE))"
#define SW_UPDATE_MANY(OWNER_SET, OWNER_COND)                                                      \
  "UPDATE operations o SET state = u.state, data = u.data, steps = u.steps, "                      \
  "error = u.error, updated_at = u.updated_at, ended_at = " SW_ENDED_AT ", "                       \
  "end_state = " SW_END_STATE ", deadline = u.deadline, "                                          \
  "revision = u.revision, wake_at = u.wake_at, signals = u.signals, "                              \
  "pause_requested = u.pause_requested, "                                                          \
  "admission = CASE WHEN " SW_ENDED " THEN 'queued' ELSE o.admission END, "                        \
  "blocked_by = CASE WHEN " SW_ENDED " THEN '' ELSE o.blocked_by END" OWNER_SET " "                \
  "FROM unnest($1::TEXT[], $2::TEXT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], "                       \
  "$6::BIGINT[], $7::BIGINT[], $8::BIGINT[], $9::BIGINT[], $10::TEXT[], "                          \
  "$11::INTEGER[], $12::BIGINT[]) AS u(id, state, data, steps, error, updated_at, deadline, "      \
  "revision, wake_at, signals, pause_requested, cmd) "                                             \
  "WHERE o.id = u.id AND o.revision = u.revision - 1" OWNER_COND " AND " SW_COMMAND_KEPT           \
  " RETURNING o.id"

struct statement {
  const char* name;
  const char* sql;
};

constexpr statement statements[] = {
  {pg_stmt::create_many, SW_CREATE_MANY("", "")},
  {pg_stmt::create_many_owned, SW_CREATE_MANY(", owner", ", $24")},
  {pg_stmt::update_many, SW_UPDATE_MANY("", "")},
  // A process writes the operations it owns, and adopts a terminal one
  // that it resumes (retry): no process drives a terminal operation, and
  // the revision check lets only one of two concurrent retries win.
  {pg_stmt::update_many_owned,
   SW_UPDATE_MANY(", owner = $13", " AND (o.owner = $13 OR o.state IN " SW_TERMINAL ")")},
  {pg_stmt::append_events,
   "WITH c AS (UPDATE event_counter SET last_seq = last_seq + $1 "
   "WHERE id = 1 RETURNING last_seq), "
   "ins AS (INSERT INTO events (" STEPWISE_EVENT_COLUMNS ") "
   "SELECT c.last_seq - $1 + u.ord, " STEPWISE_EVENT_INSERT_COLUMNS " FROM c, "
   "unnest($2::BIGINT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::INTEGER[], "
   "$7::TEXT[], $8::TEXT[], $9::TEXT[]) WITH ORDINALITY "
   "AS u(" STEPWISE_EVENT_INSERT_COLUMNS ", ord)) "
   "SELECT last_seq FROM c"},
  {pg_stmt::mark_commit,
   "INSERT INTO commit_marks (writer, token, last_seq, at) "
   "SELECT $1, $2, last_seq, stepwise_now_us() FROM event_counter WHERE id = 1 "
   "ON CONFLICT (writer) DO UPDATE SET token = excluded.token, "
   "last_seq = excluded.last_seq, at = excluded.at"},
  {pg_stmt::read_mark, "SELECT token, last_seq FROM commit_marks WHERE writer = $1 FOR UPDATE"},
  {pg_stmt::renew_owner, "UPDATE process_leases SET renewed_at = stepwise_now_us(), "
                         "lease_expires_at = stepwise_now_us() + $2 "
                         "WHERE owner = $1 AND NOT ended RETURNING 1"},
  {pg_stmt::load, "SELECT " STEPWISE_PG_OP_COLUMNS " FROM operations WHERE id = $1"},
  {pg_stmt::find_by_key,
   "SELECT " STEPWISE_PG_OP_COLUMNS " FROM operations WHERE idempotency_key = $1"},
  {pg_stmt::load_active, "SELECT " STEPWISE_PG_OP_COLUMNS " FROM operations WHERE ended_at IS NULL"
                         " AND (created_at, id) > ($1, $2)"
                         " ORDER BY created_at, id LIMIT $3"},
  {pg_stmt::events_after,
   "SELECT " STEPWISE_EVENT_COLUMNS " FROM events WHERE seq > $1 ORDER BY seq LIMIT $2"},
  {pg_stmt::last_seq, "SELECT last_seq FROM event_counter WHERE id = 1"},
};

} // namespace

caf::error pg_prepare_all(pg_connection& conn) {
  for (auto& s : statements)
    if (auto err = conn.prepare(s.name, s.sql))
      return err;
  return caf::none;
}

} // namespace stepwise
