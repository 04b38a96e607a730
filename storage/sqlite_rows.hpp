#pragma once

#include <caf/expected.hpp>

#include "engine/event.hpp"
#include "engine/operation.hpp"
#include "storage/sqlite_statement.hpp"

/// The mapping between SQLite rows and the domain types: the SQL text of
/// every statement that reads or writes a row, and the functions that bind
/// or read its columns in that statement's order. Keeping both in one file
/// keeps the column numbers next to the SQL they refer to.
namespace stepwise::sqlite_rows {

// -- operations ---------------------------------------------------------------

/// The select list that `read_operation` expects, in this order.
extern const char* const operation_columns;

/// Inserts an operation; a taken id or idempotency key inserts nothing.
extern const char* const insert_operation_sql;

/// Replaces the mutable fields of an operation at an expected revision.
extern const char* const update_operation_sql;

/// Binds every column of `op` to `insert_operation_sql`.
void bind_insert(sqlite_statement& stmt, const operation& op);

/// Binds the mutable columns of `op` to `update_operation_sql`, expecting
/// the stored revision `op.revision - 1`.
void bind_update(sqlite_statement& stmt, const operation& op);

/// Reads the current row of a statement that selected `operation_columns`.
[[nodiscard]] caf::expected<operation>
read_operation(const sqlite_statement& stmt);

// -- events -------------------------------------------------------------------

/// The select list that `read_event` expects, in this order.
extern const char* const event_columns;

/// Appends an event; its seq is the connection's last insert rowid.
extern const char* const insert_event_sql;

/// Binds every column of `ev` but `seq` to `insert_event_sql`.
void bind_event(sqlite_statement& stmt, const event& ev);

/// Reads the current row of a statement that selected `event_columns`.
[[nodiscard]] caf::expected<event> read_event(const sqlite_statement& stmt);

} // namespace stepwise::sqlite_rows
