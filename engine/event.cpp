#include "engine/event.hpp"

#include <array>

#include "engine/enum_names.hpp"

namespace stepwise {

namespace {

constexpr std::array<std::string_view, 26> names{
  "operation_created",    "step_started",
  "step_succeeded",       "step_retry_scheduled",
  "step_failed",          "step_timed_out",
  "step_skipped",         "step_incomplete",
  "compensation_started", "compensation_succeeded",
  "compensation_failed",  "operation_waiting",
  "operation_succeeded",  "operation_failed",
  "operation_canceled",   "infrastructure_task_completed",
  "signal_received",      "operation_queued",
  "operation_paused",     "operation_resumed",
  "operation_retried",    "schedule_fired",
  "schedule_skipped",     "schedule_changed",
  "input_patched",        "steps_reset",
};

} // namespace

void stamp_by(std::vector<event>& evs, const std::string& by, size_t from) {
  if (by.empty())
    return;
  for (size_t i = from; i < evs.size(); ++i)
    evs[i].by = by;
}

const std::string& to_string(event_type x) {
  static const auto strings = enum_names(names);
  return strings[static_cast<size_t>(x)];
}

std::optional<event_type> parse_event_type(std::string_view s) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == s)
      return static_cast<event_type>(i);
  return std::nullopt;
}

} // namespace stepwise
