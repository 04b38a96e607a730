#include "engine/commands.hpp"

#include <string>

#include "engine/errc.hpp"

namespace stepwise {

std::string_view to_string(command x) {
  switch (x) {
    case command::cancel:
      return "cancel";
    case command::retry:
      return "retry";
  }
  return "?";
}

bool allows(const operation& op, command cmd) {
  switch (cmd) {
    case command::cancel:
      return op.state == op_state::pending || op.state == op_state::in_progress
             || op.state == op_state::waiting;
    case command::retry:
      return op.state == op_state::failed;
  }
  return false;
}

caf::error refusal(const operation& op, command cmd) {
  std::string allowed;
  switch (cmd) {
    case command::cancel:
      allowed = "only pending, in_progress or waiting operations can be canceled";
      break;
    case command::retry:
      allowed = "only failed operations can be retried";
      break;
  }
  return make_error(errc::invalid_state, "operation '" + op.id + "' is "
                                           + std::string{to_string(op.state)}
                                           + ": " + allowed);
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
