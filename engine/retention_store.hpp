#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "engine/time.hpp"

namespace stepwise {

/// A place in removal order (`updated_at`, then id).
struct purge_position {
  time_point updated_at;
  std::string id;
};

/// What one `retention_store::purge` call removes.
struct purge_request {
  /// Only operations whose last write (`updated_at`) is before this.
  time_point ended_before;
  /// Only operations of this workflow (empty: any).
  std::string workflow;
  /// At most this many operations (oldest first), in one transaction.
  size_t max_operations = 100;
  /// Removes nothing; answers what a call without it would have removed.
  bool dry_run = false;
  /// Only operations after this place: where the previous batch of a pass
  /// stopped, so that the operations it had to keep are not read again.
  std::optional<purge_position> after;
};

/// What a `purge` call removed (or, for a dry run, would have removed).
struct purge_result {
  /// The most ids `purge_result::ids` holds.
  static constexpr size_t max_ids = 20;

  size_t operations = 0;
  /// Events of those operations.
  size_t events = 0;
  /// The first `max_ids` of those operations, oldest first.
  std::vector<std::string> ids;
  /// The horizon after the call (`retention_store::horizon`).
  int64_t horizon = 0;
  /// Operations the call found removable (a few may have changed before
  /// the delete, and stayed). Fewer than `max_operations`: none is left
  /// after them.
  size_t found = 0;
  /// The place of the last of them (none if none): the next batch's
  /// `after`.
  std::optional<purge_position> last;
};

/// Removal of ended operations, for retention (`--retention`) and
/// `stepwise ops purge`. A store that offers it returns it from
/// `store::retention()`.
///
/// An operation is removable when all of these hold:
/// - its state is terminal (succeeded, failed, canceled) and its
///   `updated_at` is before `ended_before`; its workflow is the requested
///   one, if any;
/// - no operation whose `parent_id` names it is non-terminal (a live child
///   reports to its parent);
/// - the operation its `parent_id` names, if stored, is terminal (a live
///   parent reads its children's results);
/// - it is not a succeeded `provision_runtime` unless a succeeded
///   `deprovision_runtime` names it in `input.provision_operation_id`: its
///   infrastructure still exists, and a later deprovisioning reads it;
/// - no non-terminal `deprovision_runtime` names it in
///   `input.provision_operation_id`;
/// - it is not a succeeded `deprovision_runtime` whose provisioning is still
///   stored: removing it first would keep that provisioning forever (the
///   provisioning goes first, the deprovisioning with a later call);
/// - it is not an operation a schedule's fire started (`schedule_id`)
///   created less than `schedule_grace` before `ended_before`: a process
///   that restarts before the schedule recorded the fire fires it again
///   within that grace, and only the operation's idempotency key (gone
///   with it) makes that fire start nothing new;
/// - none of its events has a seq above the lowest sink cursor
///   (`sink_store`; without sinks, no limit): a sink delivers it yet.
///
/// Removing an operation removes its row (with its signals and any sealed
/// secret values, which live in that row) and its events. Removable
/// operations go oldest first (`updated_at`, then id), at most
/// `max_operations` per call, in one transaction per call. A removal never
/// takes an operation that another writer changed since the call read it
/// (its revision and terminal state are checked in the delete): a retry
/// that revives it wins.
///
/// Threading: thread-safe; every call may block (never on a CAF scheduler
/// thread). A call holds the store's write side for one short transaction.
class retention_store {
public:
  virtual ~retention_store() = default;

  /// Removes (or, dry, finds) one batch of removable operations.
  [[nodiscard]] virtual caf::expected<purge_result> purge(const purge_request& req) = 0;

  /// Returns the highest event seq retention has removed so far (0: none):
  /// events at or below it may be gone, events above it are all there.
  /// Durable: it survives reopening the store.
  [[nodiscard]] virtual caf::expected<int64_t> horizon() = 0;

  /// Returns the bytes the store takes on disk (SQLite: the database file
  /// and its write-ahead log; PostgreSQL: the database), free pages that
  /// later writes reuse included.
  [[nodiscard]] virtual caf::expected<int64_t> size_bytes() = 0;
};

} // namespace stepwise
