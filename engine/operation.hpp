#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "engine/time.hpp"

namespace stepwise {

/// The lifecycle state of an operation.
enum class op_state : uint8_t {
  pending,
  in_progress,
  /// A retry or sleep is due later.
  waiting,
  succeeded,
  failed,
  canceled,
  /// A saga runs its compensations.
  compensating,
  /// Stopped at a step until resumed (asked for, or a policy ran out of
  /// attempts); holds no actor.
  paused,
};

/// The state of one step within an operation.
enum class step_state : uint8_t {
  pending,
  running,
  /// A retry or sleep is due at `next_attempt_at`.
  waiting,
  succeeded,
  failed,
  skipped,
  /// A best-effort step that gave up; the operation went on.
  incomplete,
};

/// The state's name, e.g. `succeeded` (engine/enum_names.hpp: a string,
/// so that `caf::aout << op.state` prints it bare).
const std::string& to_string(op_state x);
const std::string& to_string(step_state x);
std::optional<op_state> parse_op_state(std::string_view s);
std::optional<step_state> parse_step_state(std::string_view s);

/// Returns whether no further transition can happen (but retry).
inline bool is_terminal(op_state x) {
  return x == op_state::succeeded || x == op_state::failed || x == op_state::canceled;
}

/// Returns whether a step in this state will not run again.
inline bool is_settled(step_state x) {
  return x == step_state::succeeded || x == step_state::skipped || x == step_state::incomplete;
}

/// The record of one step of one operation.
struct step_record {
  std::string name;
  int32_t weight = 0;
  step_state state = step_state::pending;
  int32_t attempts = 0;
  std::optional<time_point> first_attempt_at;
  std::optional<time_point> last_attempt_at;
  std::optional<time_point> next_attempt_at;
  int64_t duration_ms = 0;
  std::string last_error;
  /// The step's compensation (sagas): `pending` until it starts, then
  /// `running`, `waiting` (a retry is due at `next_attempt_at`),
  /// `succeeded` or `failed`.
  step_state compensation = step_state::pending;
  int32_t compensation_attempts = 0;
  /// How many times a repair sent the step back (`retry` with
  /// `from_step`): the children a run starts are its own
  /// (engine/children.hpp, `child_key`).
  int32_t run = 0;
};

/// A named external event an operation received (`engine::signal`),
/// stored with the operation whether or not it waited for it then.
struct signal_record {
  std::string name;
  /// The sender's id for the signal (a repeat with the same id is a
  /// no-op), or one the engine made up.
  std::string id;
  boost::json::value payload;
  time_point received_at;
  /// The wait step the signal ended; empty while no wait took it.
  std::string consumed_by;
};

/// Where an operation stands with the serialization key and concurrency
/// limit of its workflow.
enum class admission : uint8_t {
  /// Its workflow declares neither a key nor a limit.
  none,
  /// Waits for its key or for a free slot of its workflow's limit.
  queued,
  /// Holds its key and slot until it is terminal.
  admitted,
};

std::string_view to_string(admission x);
std::optional<admission> parse_admission(std::string_view s);

/// One run of a workflow, as stored.
struct operation {
  std::string id;
  std::string workflow;
  int32_t workflow_version = 0;
  op_state state = op_state::pending;
  /// Immutable after creation, so it is shared rather than copied.
  std::shared_ptr<const boost::json::object> input;
  boost::json::object data;
  std::vector<step_record> steps;
  std::string error;
  time_point created_at;
  time_point updated_at;
  std::optional<time_point> deadline;
  std::string idempotency_key;
  /// Fingerprint of the create request, to tell a replay from a conflict.
  std::string request_hash;
  /// Optimistic-concurrency counter: 1 on create, +1 per write.
  int64_t revision = 0;
  /// When the operation must be woken (a due retry or sleep), if waiting.
  std::optional<time_point> wake_at;
  /// Signals received, in arrival order.
  std::vector<signal_record> signals;
  /// The serialization key taken from the input (empty: none): operations
  /// with the same key run one at a time, in creation order.
  std::string key;
  /// Set at creation and by the store's admission rounds only; a
  /// checkpoint does not write it.
  stepwise::admission admission = stepwise::admission::none;
  /// While queued: what it waits for (an operation id, or
  /// `limit:<workflow>`). Written by admission rounds only.
  std::string blocked_by;
  /// A pause was asked for while a step ran: the operation pauses when
  /// the attempt ends.
  bool pause_requested = false;
  /// The operation whose step started this one (empty: none). Set at
  /// creation.
  std::string parent_id;
  /// The schedule whose fire started it (empty: none). Set at creation.
  std::string schedule_id;
  /// The process that drives it, on a store several processes share
  /// (empty: none, or a store of one process). Read from the store and
  /// set by the process that takes it; never written by a checkpoint (the
  /// store writes the committing process).
  std::string owner;
  /// Labels to find it by (`list_filter::labels`): the start request's, the
  /// ones its workflow takes from the input, and `parent` / `schedule`.
  /// Set at creation.
  std::map<std::string, std::string> labels;

  /// Returns the index of the first step that has not settled, or
  /// `steps.size()` when all have.
  size_t cursor() const;
};

/// A shared, immutable operation snapshot.
using op_snapshot = std::shared_ptr<const operation>;

} // namespace stepwise
