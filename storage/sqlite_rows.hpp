#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "storage/event_row.hpp"
#include "storage/op_row.hpp"
#include "storage/sqlite_statement.hpp"

/// The SQLite side of the row mappings (`op_row`, `event_row`): the SQL
/// text of every statement that reads or writes a row, and the binding of
/// a row to its parameters. Both in one file, so that the parameter
/// numbers stand next to the SQL they refer to.
namespace stepwise::sqlite_rows {

/// The encoded JSON of the row being written. The write path binds it
/// without copying, so it must stay unchanged until the statement it was
/// bound to is reset.
struct row_buffers {
  op_row_buffers op;
  /// The `extra` JSON of the rows of one events insert.
  std::vector<std::string> extras;
};

// -- operations ---------------------------------------------------------------

/// Inserts an operation; a taken id or idempotency key inserts nothing.
extern const char* const insert_operation_sql;

/// Replaces the mutable fields of an operation whose stored revision is
/// the one before the row's.
extern const char* const update_operation_sql;
/// As `update_operation_sql` for a live operation whose stored state is the
/// new one (no row changes otherwise): the state and admission columns,
/// and their indexes, stay as they are.
extern const char* const update_same_state_sql;

/// Binds `row` to `insert_operation_sql` or `update_operation_sql`, whose
/// parameters are numbered as the columns of `STEPWISE_OP_COLUMNS`. Binds
/// text by reference: what `row` views must outlive the statement's reset.
/// `create`: the insert, which also takes what is fixed at creation.
void bind_operation(sqlite_statement& stmt, const op_row& row, bool create);

/// Selects up to `?3` operations that are not terminal (-1: all) after
/// created_at `?1` and id `?2`, oldest first. Its condition repeats the one
/// of the partial index operations_active.
extern const char* const select_active_sql;

/// Returns the list query for the filters in use, with parameters `?1`
/// state, `?2` workflow, `?3`/`?4` created_at/id of the cursor, `?5` the
/// row limit, `?6` parent, `?7` schedule, `?8` idempotency key, `?9` /
/// `?12` created after / before, `?20 + 2i`/`?21 + 2i` label i's key and
/// value. One text per combination: a condition like
/// "?1 IS NULL OR state = ?1" would keep SQLite from using the indexes.
std::string select_list_sql(const list_filter& f, bool after);

// -- events -------------------------------------------------------------------

/// Events appended by one statement of `insert_events_sql`: one statement
/// per row cost SQLite a program run and an update of its sequence table
/// per event, about half of an event's insert.
constexpr size_t events_per_insert = 32;

/// Appends `rows` events, in order: their seqs are consecutive, the last
/// one the connection's last insert rowid (AUTOINCREMENT numbers the rows
/// of a statement one after the other).
std::string insert_events_sql(size_t rows);

/// Binds every column of `row` but `seq` to the parameters of row `nth` of
/// an `insert_events_sql` statement. References as `bind_operation`.
void bind_event(sqlite_statement& stmt, const event_row& row, size_t nth);

} // namespace stepwise::sqlite_rows
