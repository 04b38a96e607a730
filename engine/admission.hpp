#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/event.hpp"
#include "engine/operation.hpp"

namespace stepwise {

/// How many operations of one workflow wait for admission and how many
/// hold it (admitted and not ended), across every process of the store.
struct admission_counts {
  int64_t queued = 0;
  int64_t running = 0;
};

/// The concurrency limits: most operations in progress at once per
/// workflow name (all versions). A workflow not named has no limit.
using admission_limits = std::map<std::string, size_t>;

/// One operation that takes part in admission (its workflow declares a
/// serialization key or has a limit) and has not ended, as a round reads
/// it. Rounds read these in creation order.
struct admission_row {
  std::string id;
  std::string workflow;
  /// The serialization key (empty: none).
  std::string key;
  stepwise::admission admission = stepwise::admission::queued;
  op_state state = op_state::pending;
  std::string blocked_by;
  /// The operation's revision as the round read it.
  int64_t revision = 0;
};

/// The operations that hold admission and have started (admitted, not
/// pending, not ended), summed up: a round needs of them only how many
/// each workflow runs and which one holds each key, so a store that keeps
/// them in memory passes this instead of their rows.
struct admission_held {
  /// Per workflow.
  std::unordered_map<std::string, int64_t> running;
  /// Per serialization key: the operation that holds it.
  std::unordered_map<std::string, std::string> keys;
};

/// What one admission round decides.
struct admission_plan {
  /// Rows (indices) admitted now.
  std::vector<size_t> admit;
  /// Rows (indices) still queued whose blocker changed, with the new one:
  /// each gets an `operation_queued` event.
  std::vector<std::pair<size_t, std::string>> blocked;
  /// Rows (indices) admitted, now or before, that have not started: their
  /// owners start them.
  std::vector<size_t> startable;
  /// Per workflow, after the round.
  std::map<std::string, admission_counts> counts;
};

/// Decides an admission round over `rows` (in creation order): a queued
/// operation is admitted when no earlier operation with its key is still
/// there and its workflow is under its limit with no earlier operation of
/// that workflow waiting for a slot (FIFO). A blocked one names what it
/// waits for: the operation right ahead of it with its key, or
/// `limit:<workflow>`. `held` counts as admitted rows ahead of all of
/// `rows`. Pure: the stores run it inside their transaction.
admission_plan plan_admission(const std::vector<admission_row>& rows,
                              const admission_limits& limits, const admission_held& held = {});

/// A change a round writes to one operation's admission columns.
struct admission_update {
  std::string id;
  stepwise::admission admission = stepwise::admission::queued;
  std::string blocked_by;
};

/// One round, ready for a store to write (`updates` and `events` in one
/// transaction) and for the engine to act on.
struct admission_round {
  std::vector<admission_update> updates;
  /// `operation_queued` events (`extra.blocked_by`); the store sets `seq`.
  std::vector<event> events;
  /// Operations admitted, now or before, that have not started yet, and
  /// the revision of each as the round read it: an operation that changed
  /// since (it ran and was retried, and waits in line again) is not
  /// admitted by this round.
  std::vector<std::string> startable;
  std::vector<int64_t> startable_revisions;
  std::map<std::string, admission_counts> counts;
};

/// Plans a round over `rows` and `held` (see `plan_admission`) as writes
/// and events.
admission_round plan_round(const std::vector<admission_row>& rows, const admission_limits& limits,
                           time_point now, const admission_held& held = {});

/// Returns a round in words: two plans are the same round when these are
/// equal (the checks of a round planned from a summary against one
/// planned from a full read).
std::string describe_round(const admission_round& r);

} // namespace stepwise
