#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "engine/time.hpp"

namespace stepwise {

/// The kinds of events in the durable event log.
enum class event_type : uint8_t {
  operation_created,
  step_started,
  step_succeeded,
  step_retry_scheduled,
  step_failed,
  step_timed_out,
  /// A step was skipped: its condition was false, or a client asked
  /// (`extra.reason`).
  step_skipped,
  step_incomplete,
  compensation_started,
  compensation_succeeded,
  compensation_failed,
  operation_waiting,
  operation_succeeded,
  operation_failed,
  operation_canceled,
  infrastructure_task_completed,
  /// A signal was stored (`extra`: `name`, `signal_id`).
  signal_received,
  /// The operation waits for its serialization key or a free slot of its
  /// workflow's limit (`extra`: `blocked_by`).
  operation_queued,
  /// The operation stopped at a step until resumed (`error`: why).
  operation_paused,
  /// A paused operation goes on.
  operation_resumed,
  /// A retry began a new run of an ended operation (it ends with a terminal
  /// event of its own).
  operation_retried,
  /// A schedule's fire started this operation (`extra`: `schedule`,
  /// `fire_time`); written with its creation.
  schedule_fired,
  /// A schedule skipped fires (`operation_id` empty; `extra`: `schedule`,
  /// `fire_time` of the last one, `count`, `reason`: `overlap` or
  /// `missed`).
  schedule_skipped,
  /// A client changed a schedule (`operation_id` empty; `extra`:
  /// `schedule`, `change`: `created`, `replaced`, `deleted`, `paused` or
  /// `resumed`); written with the change.
  schedule_changed,
  /// A retry patched the operation's input (`extra.paths`: the JSON
  /// pointers it set or removed; never the values).
  input_patched,
  /// A retry's `from_step` sent steps back to pending (`extra.from_step`,
  /// `extra.steps`: their names).
  steps_reset,
};

const std::string& to_string(event_type x);
std::optional<event_type> parse_event_type(std::string_view s);

/// Returns whether `x` ends an operation (exactly one per operation).
inline bool is_terminal(event_type x) {
  return x == event_type::operation_succeeded || x == event_type::operation_failed
         || x == event_type::operation_canceled;
}

/// One entry of the event log. `seq` is assigned by the store at commit:
/// strictly increasing, never reused.
struct event {
  int64_t seq = 0;
  time_point time;
  std::string operation_id;
  event_type type = event_type::operation_created;
  std::string step;
  int32_t attempt = 0;
  std::string state;
  std::string error;
  /// Further fields of some types (infrastructure_task_completed).
  boost::json::object extra;
  /// Who caused it, for an event a request caused: the name of the API
  /// token, `anonymous`, `osb:<user>`, `schedule:<id>`, `parent:<id>`.
  /// Empty: the engine's own doing (a step's events). Stored inside
  /// `extra` under `by_key` (storage/event_row.cpp), so it needs no
  /// column of its own.
  std::string by{};
};

/// The key of `extra` under which the stores keep `event::by`; never an
/// extra field of its own.
inline constexpr std::string_view by_key = "by";

/// Sets `by` on each of `evs` from `from` on (the events one request
/// wrote); an empty `by` changes nothing.
void stamp_by(std::vector<event>& evs, const std::string& by, size_t from = 0);

} // namespace stepwise
