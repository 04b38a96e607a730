#pragma once

#include <string>

#include <caf/expected.hpp>

#include "engine/event.hpp"
#include "engine/operation.hpp"
#include "storage/sqlite_statement.hpp"

/// The mapping between SQLite rows and the domain types: the SQL text of
/// every statement that reads or writes a row, and the functions that bind
/// or read its columns in that statement's order. Keeping both in one file
/// keeps the column numbers next to the SQL they refer to.
namespace stepwise::sqlite_rows {

/// Reusable buffers for the JSON text of one row being written: the
/// write path binds them without copying, and reusing them saves an
/// allocation per field and checkpoint. They must stay unchanged until the
/// statement they were bound to is reset.
struct row_buffers {
  std::string input;
  std::string data;
  std::string steps;
  std::string extra;
};

// -- operations ---------------------------------------------------------------

/// The select list that `read_operation` expects, in this order.
extern const char* const operation_columns;

/// Inserts an operation; a taken id or idempotency key inserts nothing.
extern const char* const insert_operation_sql;

/// Replaces the mutable fields of an operation at an expected revision.
extern const char* const update_operation_sql;

/// Binds every column of `op` to `insert_operation_sql`. Binds text of
/// `op` and `buf` by reference: both must outlive the statement's reset.
void bind_insert(sqlite_statement& stmt, const operation& op,
                 row_buffers& buf);

/// Binds the mutable columns of `op` to `update_operation_sql`, expecting
/// the stored revision `op.revision - 1`. References as `bind_insert`.
void bind_update(sqlite_statement& stmt, const operation& op,
                 row_buffers& buf);

/// Selects the operations that are not terminal, oldest first. Its
/// condition repeats the one of the partial index operations_active.
extern const char* const select_active_sql;

/// Returns the list query for the filters in use, with parameters `?1`
/// state, `?2` workflow, `?3`/`?4` created_at/id of the cursor and `?5` the
/// row limit. One text per combination: a condition like
/// "?1 IS NULL OR state = ?1" would keep SQLite from using the indexes.
std::string select_list_sql(bool by_state, bool by_workflow, bool after);

/// Reads the current row of a statement that selected `operation_columns`.
[[nodiscard]] caf::expected<operation>
read_operation(const sqlite_statement& stmt);

// -- events -------------------------------------------------------------------

/// The select list that `read_event` expects, in this order.
extern const char* const event_columns;

/// Appends an event; its seq is the connection's last insert rowid.
extern const char* const insert_event_sql;

/// Binds every column of `ev` but `seq` to `insert_event_sql`. References
/// as `bind_insert`.
void bind_event(sqlite_statement& stmt, const event& ev, row_buffers& buf);

/// Reads the current row of a statement that selected `event_columns`.
[[nodiscard]] caf::expected<event> read_event(const sqlite_statement& stmt);

} // namespace stepwise::sqlite_rows
