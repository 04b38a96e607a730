#include "storage/pg_statements.hpp"

#include "storage/pg_connection.hpp"

namespace stepwise {

namespace {

#define SW_CREATE                                                              \
  "INSERT INTO operations (id, workflow, workflow_version, state, input, "     \
  "data, steps, error, created_at, updated_at, deadline, idempotency_key, "    \
  "request_hash, revision, wake_at"

#define SW_UPDATE                                                              \
  "UPDATE operations SET state = $3, data = $4, steps = $5, error = $6, "      \
  "updated_at = $7, deadline = $8, revision = $9, wake_at = $10 "              \
  "WHERE id = $1 AND revision = $2"

#define SW_TERMINAL "('succeeded', 'failed', 'canceled')"

struct statement {
  const char* name;
  const char* sql;
};

constexpr statement statements[] = {
  {pg_stmt::create,
   SW_CREATE ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
             "$13, $14, $15) ON CONFLICT DO NOTHING RETURNING 1"},
  {pg_stmt::create_owned,
   SW_CREATE ", owner) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
             "$12, $13, $14, $15, $16) ON CONFLICT DO NOTHING RETURNING 1"},
  {pg_stmt::update, SW_UPDATE " RETURNING 1"},
  {pg_stmt::update_owned, SW_UPDATE " AND owner = $11 RETURNING 1"},
  {pg_stmt::append_events,
   "WITH c AS (UPDATE event_counter SET last_seq = last_seq + $1 "
   "WHERE id = 1 RETURNING last_seq), "
   "ins AS (INSERT INTO events (" STEPWISE_PG_EVENT_COLUMNS ") "
   "SELECT c.last_seq - $1 + u.ord, u.time, u.op, u.type, u.step, "
   "u.attempt, u.state, u.error, u.extra FROM c, "
   "unnest($2::BIGINT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::INTEGER[], "
   "$7::TEXT[], $8::TEXT[], $9::TEXT[]) WITH ORDINALITY "
   "AS u(time, op, type, step, attempt, state, error, extra, ord)) "
   "SELECT last_seq FROM c"},
  {pg_stmt::renew_owner,
   "UPDATE engine_owners SET renewed_at = stepwise_now_us(), "
   "lease_expires_at = stepwise_now_us() + $2 "
   "WHERE owner = $1 RETURNING 1"},
  {pg_stmt::load,
   "SELECT " STEPWISE_PG_OP_COLUMNS " FROM operations WHERE id = $1"},
  {pg_stmt::find_by_key, "SELECT " STEPWISE_PG_OP_COLUMNS
                         " FROM operations WHERE idempotency_key = $1"},
  {pg_stmt::load_active, "SELECT " STEPWISE_PG_OP_COLUMNS
                         " FROM operations WHERE state NOT IN " SW_TERMINAL
                         " ORDER BY created_at, id"},
  {pg_stmt::events_after, "SELECT " STEPWISE_PG_EVENT_COLUMNS
                          " FROM events WHERE seq > $1 ORDER BY seq LIMIT $2"},
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
