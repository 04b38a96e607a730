#pragma once

#include <caf/error.hpp>

namespace stepwise {

class pg_connection;

/// Names of the statements every store connection prepares once, right
/// after connecting (and again after a reconnect).
namespace pg_stmt {

// -- writes -------------------------------------------------------------------

/// Inserts operations (one array per column, see `pg_op_columns`) unless
/// their id or idempotency key is taken. Returns the ids inserted.
constexpr auto create_many = "sw_create_many";
/// As `create_many`, owned by the lease holder `$16`.
constexpr auto create_many_owned = "sw_create_many_owned";
/// Replaces operations' mutable fields where the stored revision is the
/// one before the new. Returns the ids updated.
constexpr auto update_many = "sw_update_many";
/// As `update_many`, only operations the lease holder `$10` owns.
constexpr auto update_many_owned = "sw_update_many_owned";
/// Takes `$1` sequence numbers from the counter (locking it until the
/// transaction ends) and inserts the events of the unnested arrays with
/// them. Returns the last number taken.
constexpr auto append_events = "sw_append_events";
/// Records commit `$2` of writer `$1` and the last event number it took,
/// in the commit's transaction (see `pg_commit_mark`).
constexpr auto mark_commit = "sw_mark_commit";
/// The last commit token of writer `$1` and its last event number, once
/// no transaction that may still write them is open (row lock).
constexpr auto read_mark = "sw_read_mark";
/// Extends the lease of owner `$1` to `$2` microseconds from now, unless
/// another process ended it (an expired lease that nobody ended yet is
/// still ours). Returns one row when renewed.
constexpr auto renew_owner = "sw_renew_owner";

// -- reads --------------------------------------------------------------------

/// The operation with id `$1`.
constexpr auto load = "sw_load";
/// The operation created with idempotency key `$1`.
constexpr auto find_by_key = "sw_find_by_key";
/// Every operation that is not terminal, oldest first.
constexpr auto load_active = "sw_load_active";
/// Up to `$2` events with `seq > $1`, oldest first.
constexpr auto events_after = "sw_events_after";
/// The highest seq written.
constexpr auto last_seq = "sw_last_seq";

} // namespace pg_stmt

/// Prepares every statement above on `conn` (its schema must be migrated).
[[nodiscard]] caf::error pg_prepare_all(pg_connection& conn);

} // namespace stepwise
