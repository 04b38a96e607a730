#include "engine/commands.hpp"

#include <array>
#include <string>

#include "engine/enum_names.hpp"

#include "engine/command_store.hpp"
#include "engine/errc.hpp"
#include "engine/time.hpp"

namespace stepwise {

const std::string& to_string(command x) {
  static const auto names =
    enum_names(std::array<std::string_view, 5>{"cancel", "retry", "pause", "resume", "skip"});
  return names[static_cast<size_t>(x)];
}

std::string_view to_string(command_outcome x) {
  switch (x) {
    case command_outcome::applied:
      return "applied";
    case command_outcome::refused:
      return "refused";
    case command_outcome::repeat:
      return "repeat";
  }
  return "?";
}

std::optional<command_outcome> parse_command_outcome(std::string_view s) {
  for (auto x : {command_outcome::applied, command_outcome::refused, command_outcome::repeat})
    if (to_string(x) == s)
      return x;
  return std::nullopt;
}

std::optional<command> parse_command(std::string_view s) {
  for (auto x : {command::cancel, command::retry, command::pause, command::resume, command::skip})
    if (to_string(x) == s)
      return x;
  return std::nullopt;
}

namespace {

bool queued(const operation& op) {
  return op.admission == admission::queued && op.state == op_state::pending;
}

bool has_incomplete(const operation& op) {
  for (auto& s : op.steps)
    if (s.state == step_state::incomplete)
      return true;
  return false;
}

bool past_deadline(const operation& op, time_point now) {
  return op.deadline && now >= *op.deadline;
}

} // namespace

bool allows(const operation& op, command cmd, time_point now) {
  switch (cmd) {
    case command::cancel:
      return op.state == op_state::pending || op.state == op_state::in_progress
             || op.state == op_state::waiting || op.state == op_state::paused;
    case command::retry:
      return (op.state == op_state::failed || op.state == op_state::canceled
              || op.state == op_state::paused
              || (op.state == op_state::succeeded && has_incomplete(op)))
             && !past_deadline(op, now);
    case command::pause:
      return (op.state == op_state::pending && !queued(op)) || op.state == op_state::in_progress
             || op.state == op_state::waiting;
    case command::resume:
      return op.state == op_state::paused || (op.pause_requested && !is_terminal(op.state));
    case command::skip:
      return (op.state == op_state::failed || op.state == op_state::paused
              || op.state == op_state::waiting)
             && !past_deadline(op, now);
  }
  return false;
}

caf::error refusal(const operation& op, command cmd, time_point now) {
  if (cmd == command::retry && past_deadline(op, now)
      && allows(op, cmd, *op.deadline - duration{1}))
    return make_error(errc::invalid_state,
                      "operation '" + op.id + "' is " + std::string{to_string(op.state)}
                        + ": its deadline (" + format_time(*op.deadline)
                        + ") has passed, so a retry would fail at once; start a new operation");
  std::string allowed;
  switch (cmd) {
    case command::cancel:
      allowed = "only pending, in_progress, waiting or paused operations can be canceled";
      break;
    case command::retry:
      allowed = op.state == op_state::succeeded
                  ? "it has no incomplete steps to run again (name a from_step to run "
                    "steps again)"
                  : "only failed, canceled and paused operations, and succeeded ones with "
                    "incomplete steps or a from_step, can be retried";
      break;
    case command::pause:
      allowed = queued(op) ? "it is queued (blocked by '" + op.blocked_by
                               + "'): cancel it, or pause it once it runs"
                           : "only pending, in_progress or waiting operations can be paused";
      break;
    case command::resume:
      allowed = "only paused operations can be resumed";
      break;
    case command::skip:
      allowed = "only a step of a failed, paused or waiting operation can be skipped";
      break;
  }
  return make_error(errc::invalid_state, "operation '" + op.id + "' is "
                                           + std::string{to_string(op.state)} + ": " + allowed);
}

caf::error signal_refusal(const operation& op) {
  return make_error(errc::invalid_state, "operation '" + op.id + "' is "
                                           + std::string{to_string(op.state)}
                                           + ": it has ended and takes no signals");
}

bool has_signal(const operation& op, const std::string& signal_id) {
  if (signal_id.empty())
    return false;
  for (auto& s : op.signals)
    if (s.id == signal_id)
      return true;
  return false;
}

} // namespace stepwise
