#include "storage/sqlite_rows.hpp"

namespace stepwise::sqlite_rows {

// -- operations ---------------------------------------------------------------

// Without a conflict target, DO NOTHING covers both the id and the
// idempotency key; the caller sees zero changes either way.
const char* const insert_operation_sql =
  "INSERT INTO operations (" STEPWISE_OP_COLUMNS ") VALUES (?1, ?2, ?3, "
  "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
  "?20, ?21, ?22, ?23) ON CONFLICT DO NOTHING";

// Parameters numbered as the insert's, so that one binding serves both.
// Input, creation time, idempotency key, request hash and serialization key
// are fixed at creation: an update neither rewrites nor changes them. The
// admission columns belong to admission rounds, except that an operation
// taking part in admission that leaves an end state (a retry) queues again
// (the right-hand sides read the row as it was).
// Comparisons, not `IN (...)`: SQLite builds a throwaway b-tree for each
// IN list of every statement it runs (two per update; bench/README.md
// "HTTP path profile").
#define SW_ENDED                                                                                   \
  "(state = 'succeeded' OR state = 'failed' OR state = 'canceled') AND admission IS NOT NULL "     \
  "AND ?4 <> 'succeeded' AND ?4 <> 'failed' AND ?4 <> 'canceled'"
const char* const update_operation_sql =
  "UPDATE operations SET workflow = ?2, workflow_version = ?3, state = ?4, "
  "data = ?6, steps = ?7, error = ?8, updated_at = ?10, deadline = ?11, "
  "revision = ?14, wake_at = ?15, signals = ?16, pause_requested = ?20, "
  "admission = CASE WHEN " SW_ENDED " THEN 'queued' ELSE admission END, "
  "blocked_by = CASE WHEN " SW_ENDED " THEN '' ELSE blocked_by END "
  "WHERE id = ?1 AND revision = ?14 - 1";
#undef SW_ENDED

// The columns an update that keeps the state writes: indexes on `state`,
// `admission` and `blocked_by` are left alone, where SQLite would rewrite
// their entries for every row whose SET names those columns, changed or
// not (three index updates of most checkpoints: a step's result keeps the
// state). `?4` and `?20` are named so that one binding serves.
const char* const update_same_state_sql =
  "UPDATE operations SET workflow = ?2, workflow_version = ?3, "
  "data = ?6, steps = ?7, error = ?8, updated_at = ?10, deadline = ?11, "
  "revision = ?14, wake_at = ?15, signals = ?16, pause_requested = ?20 "
  "WHERE id = ?1 AND revision = ?14 - 1 AND state = ?4 "
  "AND state <> 'succeeded' AND state <> 'failed' AND state <> 'canceled'";

void bind_operation(sqlite_statement& stmt, const op_row& row, bool create) {
  stmt.bind_ref(1, row.id);
  stmt.bind_ref(2, row.workflow);
  stmt.bind(3, int64_t{row.workflow_version});
  stmt.bind_ref(4, row.state);
  stmt.bind_ref(5, row.input);
  stmt.bind_ref(6, row.data);
  stmt.bind_ref(7, row.steps);
  stmt.bind_ref(8, row.error);
  stmt.bind(9, row.created_at);
  stmt.bind(10, row.updated_at);
  stmt.bind(11, row.deadline);
  stmt.bind_ref(12, row.idempotency_key);
  stmt.bind_ref(13, row.request_hash);
  stmt.bind(14, row.revision);
  stmt.bind(15, row.wake_at);
  stmt.bind_ref(16, row.signals);
  stmt.bind_ref(17, row.queue_key);
  stmt.bind_ref(18, row.admission);
  stmt.bind_ref(19, row.blocked_by);
  stmt.bind(20, int64_t{row.pause_requested});
  if (!create)
    return; // the updates have no parameters for what is fixed at creation
  stmt.bind_ref(21, row.parent_id);
  stmt.bind_ref(22, row.schedule_id);
  stmt.bind_ref(23, row.labels);
}

const char* const select_active_sql =
  "SELECT " STEPWISE_OP_COLUMNS " FROM operations WHERE state <> "
  "'succeeded' AND state <> 'failed' AND state <> 'canceled' "
  "AND (created_at, id) > (?1, ?2) ORDER BY created_at, id LIMIT ?3";

std::string select_list_sql(const list_filter& f, bool after) {
  // A key names at most one operation: its unique index finds it, and
  // labels are checked on that one row. Otherwise the first label's index
  // gives the rows in list order; CROSS JOIN keeps SQLite from reading the
  // operations first.
  bool by_label = !f.labels.empty() && f.idempotency_key.empty();
  std::string created = by_label ? "label_created_at" : "created_at";
  std::string id = by_label ? "label_operation_id" : "id";
  std::string sql = "SELECT " STEPWISE_OP_COLUMNS " FROM ";
  sql += by_label ? "operation_labels CROSS JOIN operations ON id = label_operation_id "
                    "WHERE label_key = ?20 AND label_value = ?21"
                  : "operations WHERE 1";
  if (f.state)
    sql += " AND state = ?1";
  if (!f.workflow.empty())
    sql += " AND workflow = ?2";
  if (!f.parent.empty())
    sql += " AND parent_id = ?6";
  if (!f.schedule.empty())
    sql += " AND schedule_id = ?7";
  if (!f.idempotency_key.empty())
    sql += " AND idempotency_key = ?8";
  if (f.created_after)
    sql += " AND " + created + " > ?9";
  if (f.created_before)
    sql += " AND " + created + " < ?12";
  for (size_t i = by_label ? 1 : 0; i < f.labels.size(); ++i) {
    auto k = std::to_string(20 + 2 * i);
    auto v = std::to_string(21 + 2 * i);
    sql += " AND EXISTS (SELECT 1 FROM operation_labels AS l WHERE l.label_operation_id = "
           "operations.id AND l.label_key = ?"
           + k + " AND l.label_value = ?" + v + ")";
  }
  if (after)
    sql += " AND (" + created + ", " + id + ") < (?3, ?4)";
  sql += " ORDER BY " + created + " DESC, " + id + " DESC LIMIT ?5";
  return sql;
}

// -- events -------------------------------------------------------------------

std::string insert_events_sql(size_t rows) {
  std::string sql = "INSERT INTO events (" STEPWISE_EVENT_INSERT_COLUMNS ") VALUES ";
  for (size_t r = 0; r < rows; ++r) {
    sql += r == 0 ? "(" : ", (";
    for (size_t c = 1; c <= 8; ++c) {
      sql += c == 1 ? "?" : ", ?";
      sql += std::to_string(r * 8 + c);
    }
    sql += ")";
  }
  return sql;
}

void bind_event(sqlite_statement& stmt, const event_row& row, size_t nth) {
  auto at = static_cast<int>(nth * 8);
  stmt.bind(at + 1, row.time);
  stmt.bind_ref(at + 2, row.operation_id);
  stmt.bind_ref(at + 3, row.type);
  stmt.bind_ref(at + 4, row.step);
  stmt.bind(at + 5, int64_t{row.attempt});
  stmt.bind_ref(at + 6, row.state);
  stmt.bind_ref(at + 7, row.error);
  stmt.bind_ref(at + 8, row.extra);
}

} // namespace stepwise::sqlite_rows
