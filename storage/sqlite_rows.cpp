#include "storage/sqlite_rows.hpp"

#include <memory>

#include "engine/errc.hpp"
#include "storage/codec.hpp"

namespace stepwise::sqlite_rows {

namespace {

std::string to_std(std::string_view s) {
  return std::string{s};
}

caf::error bad_column(std::string_view table, std::string_view column,
                      std::string_view value) {
  return make_error(errc::store_failure,
                    "reading " + to_std(table) + " failed: unknown "
                      + to_std(column) + " '" + to_std(value) + "'");
}

} // namespace

// -- operations ---------------------------------------------------------------

// A macro so that constant statements below can contain it as a literal.
#define OPERATION_COLUMNS                                                      \
  "id, workflow, workflow_version, state, input, data, steps, error, "         \
  "created_at, updated_at, deadline, idempotency_key, request_hash, "          \
  "revision, wake_at"

const char* const operation_columns = OPERATION_COLUMNS;

// Without a conflict target, DO NOTHING covers both the id and the
// idempotency key; the caller sees zero changes either way.
const char* const insert_operation_sql
  = "INSERT INTO operations (" OPERATION_COLUMNS ") VALUES (?1, ?2, ?3, ?4, "
    "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) ON CONFLICT DO NOTHING";

// Input, creation time, idempotency key and request hash are fixed at
// creation: an update neither rewrites nor changes them.
const char* const update_operation_sql
  = "UPDATE operations SET workflow = ?2, workflow_version = ?3, state = ?4, "
    "data = ?5, steps = ?6, error = ?7, updated_at = ?8, deadline = ?9, "
    "revision = ?10, wake_at = ?11 WHERE id = ?1 AND revision = ?12";

const char* const select_active_sql
  = "SELECT " OPERATION_COLUMNS " FROM operations WHERE state <> 'succeeded' "
    "AND state <> 'failed' AND state <> 'canceled' ORDER BY created_at, id";

std::string select_list_sql(bool by_state, bool by_workflow, bool after) {
  std::string sql = std::string{"SELECT "} + operation_columns
                    + " FROM operations WHERE 1";
  if (by_state)
    sql += " AND state = ?1";
  if (by_workflow)
    sql += " AND workflow = ?2";
  if (after)
    sql += " AND (created_at, id) < (?3, ?4)";
  sql += " ORDER BY created_at DESC, id DESC LIMIT ?5";
  return sql;
}

namespace {

// The columns a step changes, encoded into reused buffers.
void encode_progress(const operation& op, row_buffers& buf) {
  buf.data.clear();
  codec::encode_object(buf.data, op.data);
  buf.steps.clear();
  codec::encode_steps(buf.steps, op.steps);
}

// Columns 1-4 of both the insert and the update.
void bind_identity(sqlite_statement& stmt, const operation& op) {
  stmt.bind_ref(1, op.id);
  stmt.bind_ref(2, op.workflow);
  stmt.bind(3, int64_t{op.workflow_version});
  stmt.bind_ref(4, to_string(op.state));
}

} // namespace

void bind_insert(sqlite_statement& stmt, const operation& op,
                 row_buffers& buf) {
  buf.input.clear();
  if (op.input)
    codec::encode_object(buf.input, *op.input);
  else
    buf.input = "{}";
  encode_progress(op, buf);
  bind_identity(stmt, op);
  stmt.bind_ref(5, buf.input);
  stmt.bind_ref(6, buf.data);
  stmt.bind_ref(7, buf.steps);
  stmt.bind_ref(8, op.error);
  stmt.bind(9, to_micros(op.created_at));
  stmt.bind(10, to_micros(op.updated_at));
  stmt.bind(11, codec::encode_time(op.deadline));
  if (op.idempotency_key.empty())
    stmt.bind_null(12);
  else
    stmt.bind_ref(12, op.idempotency_key);
  stmt.bind_ref(13, op.request_hash);
  stmt.bind(14, op.revision);
  stmt.bind(15, codec::encode_time(op.wake_at));
}

void bind_update(sqlite_statement& stmt, const operation& op,
                 row_buffers& buf) {
  encode_progress(op, buf);
  bind_identity(stmt, op);
  stmt.bind_ref(5, buf.data);
  stmt.bind_ref(6, buf.steps);
  stmt.bind_ref(7, op.error);
  stmt.bind(8, to_micros(op.updated_at));
  stmt.bind(9, codec::encode_time(op.deadline));
  stmt.bind(10, op.revision);
  stmt.bind(11, codec::encode_time(op.wake_at));
  stmt.bind(12, op.revision - 1);
}

caf::expected<operation> read_operation(const sqlite_statement& stmt) {
  operation op;
  op.id = to_std(stmt.text(0));
  op.workflow = to_std(stmt.text(1));
  op.workflow_version = static_cast<int32_t>(stmt.int64(2));
  auto state = parse_op_state(stmt.text(3));
  if (!state)
    return bad_column("operations", "state", stmt.text(3));
  op.state = *state;
  auto input = codec::decode_object(stmt.text(4), "operation input");
  if (!input)
    return std::move(input.error());
  op.input = std::make_shared<const boost::json::object>(std::move(*input));
  auto data = codec::decode_object(stmt.text(5), "operation data");
  if (!data)
    return std::move(data.error());
  op.data = std::move(*data);
  auto steps = codec::decode_steps(stmt.text(6));
  if (!steps)
    return std::move(steps.error());
  op.steps = std::move(*steps);
  op.error = to_std(stmt.text(7));
  op.created_at = from_micros(stmt.int64(8));
  op.updated_at = from_micros(stmt.int64(9));
  op.deadline = codec::decode_time(stmt.optional_int64(10));
  op.idempotency_key = to_std(stmt.text(11));
  op.request_hash = to_std(stmt.text(12));
  op.revision = stmt.int64(13);
  op.wake_at = codec::decode_time(stmt.optional_int64(14));
  return op;
}

// -- events -------------------------------------------------------------------

const char* const event_columns
  = "seq, time, operation_id, type, step, attempt, state, error, extra";

const char* const insert_event_sql
  = "INSERT INTO events (time, operation_id, type, step, attempt, state, "
    "error, extra) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

void bind_event(sqlite_statement& stmt, const event& ev, row_buffers& buf) {
  stmt.bind(1, to_micros(ev.time));
  stmt.bind_ref(2, ev.operation_id);
  stmt.bind_ref(3, to_string(ev.type));
  stmt.bind_ref(4, ev.step);
  stmt.bind(5, int64_t{ev.attempt});
  stmt.bind_ref(6, ev.state);
  stmt.bind_ref(7, ev.error);
  // Most events have no extra fields: store none rather than "{}".
  if (ev.extra.empty()) {
    stmt.bind_null(8);
  } else {
    buf.extra.clear();
    codec::encode_object(buf.extra, ev.extra);
    stmt.bind_ref(8, buf.extra);
  }
}

caf::expected<event> read_event(const sqlite_statement& stmt) {
  event ev;
  ev.seq = stmt.int64(0);
  ev.time = from_micros(stmt.int64(1));
  ev.operation_id = to_std(stmt.text(2));
  auto type = parse_event_type(stmt.text(3));
  if (!type)
    return bad_column("events", "type", stmt.text(3));
  ev.type = *type;
  ev.step = to_std(stmt.text(4));
  ev.attempt = static_cast<int32_t>(stmt.int64(5));
  ev.state = to_std(stmt.text(6));
  ev.error = to_std(stmt.text(7));
  if (!stmt.is_null(8)) {
    auto extra = codec::decode_object(stmt.text(8), "event extra");
    if (!extra)
      return std::move(extra.error());
    ev.extra = std::move(*extra);
  }
  return ev;
}

} // namespace stepwise::sqlite_rows
