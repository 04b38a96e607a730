// The transition of an operation whose workflow version is not registered:
// it cannot go on, so it fails, durably and visibly, instead of staying
// where it stopped with nobody to drive it.
#include <string>

#include "engine/progress.hpp"
#include "engine/progress_detail.hpp"

namespace stepwise::progress {

std::string unregistered_message(const std::string& workflow, int32_t version,
                                 const std::vector<int32_t>& registered) {
  auto msg = "unknown workflow '" + workflow + "' version " + std::to_string(version)
             + ": not registered in this process ";
  if (registered.empty())
    return msg + "(no version is registered)";
  msg += "(registered: ";
  for (size_t i = 0; i < registered.size(); ++i)
    msg += (i == 0 ? "" : ", ") + std::to_string(registered[i]);
  return msg + ")";
}

next_action fail_unregistered(operation& op, const std::vector<int32_t>& registered, time_point now,
                              std::vector<event>& out) {
  auto error = unregistered_message(op.workflow, op.workflow_version, registered);
  if (op.state == op_state::compensating)
    error += "; the compensations left did not run";
  auto idx = op.cursor();
  if (idx < op.steps.size()) {
    auto& rec = op.steps[idx];
    if (rec.state == step_state::running || rec.state == step_state::waiting) {
      rec.state = step_state::failed;
      rec.next_attempt_at.reset();
      rec.last_error = error;
      op.updated_at = now;
      detail::emit(out, op, event_type::step_failed, now, &rec, error);
    }
  }
  return detail::finish(op, op_state::failed, std::move(error), now, out);
}

} // namespace stepwise::progress
