// Pause and resume: an operation stopped at a step until a person (or a
// program) says go on. Asked for, or a step's policy ran out of attempts.
#include "engine/progress.hpp"
#include "engine/progress_detail.hpp"

namespace stepwise::progress {

namespace detail {

void fresh_budget(step_record& rec) {
  rec.state = step_state::pending;
  rec.attempts = 0;
  rec.first_attempt_at.reset();
  rec.next_attempt_at.reset();
}

} // namespace detail

next_action pause(operation& op, std::string why, time_point now, std::vector<event>& out) {
  auto idx = op.cursor();
  step_record* rec = nullptr;
  if (idx < op.steps.size()) {
    rec = &op.steps[idx];
    // The step starts again when resumed: a retry that was due, a sleep or
    // a wait that was under way begins anew then. Its attempts stay shown
    // until the resume gives it a fresh budget.
    rec->state = step_state::pending;
    rec->next_attempt_at.reset();
  }
  op.state = op_state::paused;
  op.pause_requested = false;
  op.wake_at.reset();
  op.updated_at = now;
  detail::emit(out, op, event_type::operation_paused, now, rec, std::move(why));
  return {next_action::kind::park, idx, 0, {}};
}

void request_pause(operation& op, time_point now) {
  op.pause_requested = true;
  op.updated_at = now;
}

next_action resume(operation& op, const workflow& wf, time_point now, std::vector<event>& out) {
  if (op.state != op_state::paused) {
    // The pause was asked for but not taken yet: the attempt goes on.
    op.pause_requested = false;
    op.updated_at = now;
    return {};
  }
  auto idx = op.cursor();
  if (idx < op.steps.size())
    detail::fresh_budget(op.steps[idx]);
  op.state = op_state::pending;
  op.updated_at = now;
  detail::emit(out, op, event_type::operation_resumed, now);
  return begin_next(op, wf, now, out);
}

} // namespace stepwise::progress
