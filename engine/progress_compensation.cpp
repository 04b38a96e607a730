// The saga half of the transitions: when an operation cannot go on, the
// compensations of its succeeded steps run in reverse order before it ends.
#include <string>

#include "engine/progress.hpp"
#include "engine/progress_detail.hpp"

namespace stepwise::progress {

namespace detail {

void emit(std::vector<event>& out, const operation& op, event_type type, time_point now,
          const step_record* rec, std::string error) {
  event e;
  e.time = now;
  e.operation_id = op.id;
  e.type = type;
  if (rec) {
    e.step = rec->name;
    e.attempt = rec->attempts;
  }
  e.state = std::string{to_string(op.state)};
  e.error = std::move(error);
  out.emplace_back(std::move(e));
}

next_action finish(operation& op, op_state st, std::string error, time_point now,
                   std::vector<event>& out) {
  op.state = st;
  op.error = std::move(error);
  op.wake_at.reset();
  op.updated_at = now;
  auto type = st == op_state::succeeded  ? event_type::operation_succeeded
              : st == op_state::canceled ? event_type::operation_canceled
                                         : event_type::operation_failed;
  emit(out, op, type, now, nullptr, op.error);
  return {next_action::kind::finish, 0, 0, {}};
}

duration policy_delay(const step_def& def, int32_t attempt, double rnd) {
  static const retry_policy fallback;
  return (def.policy ? *def.policy : fallback).backoff(attempt, rnd);
}

namespace {

void emit_compensation(std::vector<event>& out, const operation& op, event_type type,
                       time_point now, const step_record& rec, std::string error = {}) {
  emit(out, op, type, now, &rec, std::move(error));
  out.back().attempt = rec.compensation_attempts;
}

// All compensations ran: the operation ends as the unwind decided, naming
// the compensations that failed.
next_action conclude(operation& op, time_point now, std::vector<event>& out) {
  bool canceled = op.error == canceled_marker;
  std::string error = canceled ? std::string{} : op.error;
  std::string failed;
  for (auto& rec : op.steps)
    if (rec.compensation == step_state::failed)
      failed += (failed.empty() ? "'" : ", '") + rec.name + "'";
  if (!failed.empty())
    error += (error.empty() ? "" : "; ") + std::string{"compensation failed for "} + failed;
  return finish(op, canceled ? op_state::canceled : op_state::failed, std::move(error), now, out);
}

} // namespace

next_action unwind(operation& op, const workflow& wf, op_state final_state, std::string error,
                   time_point now, std::vector<event>& out) {
  if (compensation_cursor(op, wf) == op.steps.size())
    return finish(op, final_state, std::move(error), now, out);
  op.state = op_state::compensating;
  op.error = final_state == op_state::canceled ? std::string{canceled_marker} : std::move(error);
  op.wake_at.reset();
  op.updated_at = now;
  return next_compensation(op, wf, now, out);
}

next_action next_compensation(operation& op, const workflow& wf, time_point now,
                              std::vector<event>& out) {
  auto idx = compensation_cursor(op, wf);
  if (idx == op.steps.size())
    return conclude(op, now, out);
  auto& rec = op.steps[idx];
  rec.compensation = step_state::running;
  rec.compensation_attempts += 1;
  rec.next_attempt_at.reset();
  op.wake_at.reset();
  op.updated_at = now;
  emit_compensation(out, op, event_type::compensation_started, now, rec);
  next_action act{next_action::kind::run_step, idx, rec.compensation_attempts, {}};
  act.compensate = true;
  return act;
}

next_action recover_compensation(operation& op, const workflow& wf, time_point now,
                                 std::vector<event>& out) {
  auto idx = compensation_cursor(op, wf);
  if (idx < op.steps.size()) {
    auto& rec = op.steps[idx];
    if (rec.compensation == step_state::waiting && rec.next_attempt_at) {
      next_action act{next_action::kind::wait, idx, rec.compensation_attempts,
                      *rec.next_attempt_at};
      act.compensate = true;
      return act;
    }
  }
  // A compensation recorded as running was interrupted: it runs again.
  return next_compensation(op, wf, now, out);
}

} // namespace detail

size_t compensation_cursor(const operation& op, const workflow& wf) {
  for (size_t i = op.steps.size(); i-- > 0;) {
    auto& rec = op.steps[i];
    if (rec.state == step_state::succeeded
        && (wf.steps()[i].compensate || wf.steps()[i].compensate_async)
        && rec.compensation != step_state::succeeded && rec.compensation != step_state::failed)
      return i;
  }
  return op.steps.size();
}

next_action apply_compensation(operation& op, const workflow& wf, const outcome& result,
                               duration /* took */, time_point now, double unit_random,
                               std::vector<event>& out) {
  auto idx = compensation_cursor(op, wf);
  if (idx == op.steps.size())
    return detail::next_compensation(op, wf, now, out);
  auto& rec = op.steps[idx];
  auto& def = wf.steps()[idx];
  op.updated_at = now;
  std::string error = result.message;
  if (result.what == outcome::kind::done) {
    rec.compensation = step_state::succeeded;
    detail::emit_compensation(out, op, event_type::compensation_succeeded, now, rec);
    return detail::next_compensation(op, wf, now, out);
  }
  if (result.what == outcome::kind::retry) {
    auto delay = result.delay.count() > 0
                   ? result.delay
                   : detail::policy_delay(def, rec.compensation_attempts, unit_random);
    auto due = now + delay;
    // Attempts bound a compensation's retries; elapsed time does not, since
    // the first attempt's time is not recorded apart from the step's.
    if (!def.policy || def.policy->allows(rec.compensation_attempts, now, due)) {
      rec.compensation = step_state::waiting;
      rec.next_attempt_at = due;
      rec.last_error = result.message;
      op.wake_at = due;
      // No event type is specific to a compensation's retry; consumers see
      // the operation wait, with the reason.
      detail::emit_compensation(out, op, event_type::operation_waiting, now, rec, result.message);
      next_action act{next_action::kind::wait, idx, rec.compensation_attempts, due};
      act.compensate = true;
      return act;
    }
    error =
      "gave up after " + std::to_string(rec.compensation_attempts) + " attempts: " + result.message;
  }
  rec.compensation = step_state::failed;
  rec.next_attempt_at.reset();
  rec.last_error = error;
  detail::emit_compensation(out, op, event_type::compensation_failed, now, rec, error);
  return detail::next_compensation(op, wf, now, out);
}

} // namespace stepwise::progress
