#include "engine/progress.hpp"

#include "engine/progress_detail.hpp"

#include <string>

namespace stepwise::progress {

namespace {

using detail::emit;
using detail::finish;
using detail::policy_delay;

next_action start_attempt(operation& op, const workflow& wf, size_t idx, time_point now,
                          std::vector<event>& out) {
  auto& rec = op.steps[idx];
  rec.state = step_state::running;
  rec.attempts += 1;
  if (!rec.first_attempt_at)
    rec.first_attempt_at = now;
  rec.last_attempt_at = now;
  rec.next_attempt_at.reset();
  op.state = op_state::in_progress;
  op.wake_at.reset();
  op.updated_at = now;
  emit(out, op, event_type::step_started, now, &rec);
  if (wf.steps()[idx].wait)
    return detail::begin_wait(op, wf, idx, now, out);
  return {next_action::kind::run_step, idx, rec.attempts, {}};
}

next_action schedule_wait(operation& op, size_t idx, time_point due, time_point now) {
  auto& rec = op.steps[idx];
  rec.state = step_state::waiting;
  rec.next_attempt_at = due;
  op.state = op_state::waiting;
  op.wake_at = due;
  op.updated_at = now;
  return {next_action::kind::wait, idx, rec.attempts, due};
}

} // namespace

namespace detail {

next_action give_up(operation& op, const workflow& wf, size_t idx, std::string error,
                    time_point now, std::vector<event>& out) {
  auto& rec = op.steps[idx];
  rec.last_error = error;
  rec.next_attempt_at.reset();
  if (wf.steps()[idx].best_effort) {
    rec.state = step_state::incomplete;
    emit(out, op, event_type::step_incomplete, now, &rec, error);
    return begin_next(op, wf, now, out);
  }
  rec.state = step_state::failed;
  op.updated_at = now;
  emit(out, op, event_type::step_failed, now, &rec, error);
  return detail::unwind(op, wf, op_state::failed, "step '" + rec.name + "': " + error, now, out);
}

next_action try_again(operation& op, const workflow& wf, size_t idx, duration delay,
                      std::string reason, time_point now, std::vector<event>& out) {
  auto& rec = op.steps[idx];
  auto& def = wf.steps()[idx];
  auto due = now + delay;
  if (def.policy && !def.policy->allows(rec.attempts, rec.first_attempt_at.value_or(now), due)) {
    auto why = "gave up after " + std::to_string(rec.attempts) + " attempts: " + reason;
    if (def.policy->pause_when_exhausted && !def.best_effort) {
      rec.last_error = std::move(reason);
      return pause(op, "step '" + rec.name + "' " + why, now, out);
    }
    return give_up(op, wf, idx, std::move(why), now, out);
  }
  rec.last_error = std::move(reason);
  if (op.pause_requested)
    return pause(op, "pause requested", now, out);
  auto act = schedule_wait(op, idx, due, now);
  emit(out, op, event_type::step_retry_scheduled, now, &rec, rec.last_error);
  return act;
}

} // namespace detail

using detail::give_up;
using detail::try_again;

next_action create(operation& op, const workflow& wf, time_point now, std::vector<event>& out) {
  emit(out, op, event_type::operation_created, now);
  return begin_next(op, wf, now, out);
}

next_action create_queued(operation& op, time_point now, std::vector<event>& out) {
  op.admission = admission::queued;
  emit(out, op, event_type::operation_created, now);
  return {next_action::kind::park, 0, 0, {}};
}

next_action begin_next(operation& op, const workflow& wf, time_point now, std::vector<event>& out) {
  if (op.deadline && now >= *op.deadline)
    return expire(op, wf, now, out);
  auto idx = op.cursor();
  if (idx >= op.steps.size())
    return finish(op, op_state::succeeded, {}, now, out);
  if (op.pause_requested)
    return pause(op, "pause requested", now, out);
  auto& def = wf.steps()[idx];
  if (def.sleep) {
    auto& rec = op.steps[idx];
    rec.attempts += 1;
    rec.first_attempt_at = now;
    rec.last_attempt_at = now;
    emit(out, op, event_type::step_started, now, &rec);
    auto act = schedule_wait(op, idx, now + *def.sleep, now);
    emit(out, op, event_type::operation_waiting, now, &rec);
    return act;
  }
  return start_attempt(op, wf, idx, now, out);
}

next_action apply_result(operation& op, const workflow& wf, size_t idx, const outcome& result,
                         bool skipped, duration took, time_point now, double unit_random,
                         std::vector<event>& out) {
  auto& rec = op.steps[idx];
  rec.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
  op.updated_at = now;
  if (skipped) {
    rec.state = step_state::skipped;
    emit(out, op, event_type::step_skipped, now, &rec);
    return begin_next(op, wf, now, out);
  }
  switch (result.what) {
    case outcome::kind::done:
      rec.state = step_state::succeeded;
      emit(out, op, event_type::step_succeeded, now, &rec);
      return begin_next(op, wf, now, out);
    case outcome::kind::retry: {
      auto delay = result.delay.count() > 0
                     ? result.delay
                     : policy_delay(wf.steps()[idx], rec.attempts, unit_random);
      return try_again(op, wf, idx, delay, result.message, now, out);
    }
    case outcome::kind::fail:
      break;
  }
  return give_up(op, wf, idx, result.message, now, out);
}

next_action apply_timeout(operation& op, const workflow& wf, size_t idx, time_point now,
                          double unit_random, std::vector<event>& out) {
  auto& rec = op.steps[idx];
  auto& def = wf.steps()[idx];
  auto limit =
    std::chrono::duration_cast<std::chrono::milliseconds>(def.timeout.value_or(duration{0}));
  std::string reason = "timed out after " + std::to_string(limit.count()) + " ms";
  rec.duration_ms = limit.count();
  rec.last_error = reason;
  emit(out, op, event_type::step_timed_out, now, &rec, reason);
  return try_again(op, wf, idx, policy_delay(def, rec.attempts, unit_random), std::move(reason),
                   now, out);
}

next_action wake(operation& op, const workflow& wf, time_point now, std::vector<event>& out,
                 double unit_random) {
  if (op.state == op_state::compensating)
    return detail::next_compensation(op, wf, now, out);
  auto idx = op.cursor();
  if (op.state != op_state::waiting || idx >= op.steps.size())
    return {};
  if (op.deadline && now >= *op.deadline)
    return expire(op, wf, now, out);
  auto& rec = op.steps[idx];
  // A wait step's attempt is the wait itself: it still runs, so the timer
  // is its timeout. (Between two attempts the step is `waiting`.)
  if (wf.steps()[idx].wait && rec.state == step_state::running)
    return detail::wait_timed_out(op, wf, idx, now, unit_random, out);
  if (wf.steps()[idx].sleep) {
    rec.state = step_state::succeeded;
    rec.next_attempt_at.reset();
    rec.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        now - rec.first_attempt_at.value_or(now))
                        .count();
    op.state = op_state::in_progress;
    emit(out, op, event_type::step_succeeded, now, &rec);
    return begin_next(op, wf, now, out);
  }
  return start_attempt(op, wf, idx, now, out);
}

next_action recover(operation& op, const workflow& wf, time_point now, std::vector<event>& out) {
  if (op.state == op_state::pending && op.admission == admission::queued)
    return {next_action::kind::park, 0, 0, {}}; // its admission starts it
  if (op.state == op_state::paused) {
    if (op.deadline && now >= *op.deadline)
      return expire(op, wf, now, out);
    return {next_action::kind::park, op.cursor(), 0, {}};
  }
  if (op.state == op_state::compensating)
    return detail::recover_compensation(op, wf, now, out);
  auto idx = op.cursor();
  if (op.state == op_state::waiting && idx < op.steps.size()
      && op.steps[idx].state == step_state::waiting && op.steps[idx].next_attempt_at)
    return {next_action::kind::wait, idx, op.steps[idx].attempts, *op.steps[idx].next_attempt_at};
  // A wait is durable: it goes on where it was (same attempt, same
  // timeout), rather than starting again.
  if (op.state == op_state::waiting && idx < op.steps.size()
      && op.steps[idx].state == step_state::running && wf.steps()[idx].wait)
    return {next_action::kind::await, idx, op.steps[idx].attempts,
            op.steps[idx].next_attempt_at.value_or(time_point::max())};
  // A step recorded as running was interrupted: it runs again (steps are
  // at-least-once), as a new attempt.
  return begin_next(op, wf, now, out);
}

namespace {

// Stops the step in flight, if any; returns it so the caller can report it.
step_record* stop_current(operation& op, const char* why) {
  auto idx = op.cursor();
  if (idx >= op.steps.size())
    return nullptr;
  auto& rec = op.steps[idx];
  if (rec.state != step_state::running && rec.state != step_state::waiting)
    return nullptr;
  rec.state = step_state::failed;
  rec.next_attempt_at.reset();
  rec.last_error = why;
  return &rec;
}

} // namespace

next_action cancel(operation& op, const workflow& wf, time_point now, std::vector<event>& out) {
  stop_current(op, "canceled");
  return detail::unwind(op, wf, op_state::canceled, {}, now, out);
}

next_action expire(operation& op, const workflow& wf, time_point now, std::vector<event>& out) {
  if (auto* rec = stop_current(op, "deadline exceeded"))
    emit(out, op, event_type::step_failed, now, rec, rec->last_error);
  return detail::unwind(op, wf, op_state::failed, "deadline exceeded", now, out);
}

namespace detail {

next_action go_on(operation& op, const workflow& wf, time_point now, std::vector<event>& out) {
  if (op.admission == admission::none)
    return begin_next(op, wf, now, out);
  op.admission = admission::queued;
  op.blocked_by.clear();
  op.updated_at = now;
  return {next_action::kind::park, op.cursor(), 0, {}};
}

void reopen(operation& op) {
  // Steps whose compensation ran were undone: they run again.
  for (auto& rec : op.steps) {
    if (rec.compensation == step_state::pending)
      continue;
    step_record fresh;
    fresh.name = std::move(rec.name);
    fresh.weight = rec.weight;
    rec = std::move(fresh);
  }
  auto idx = op.cursor();
  if (idx < op.steps.size())
    detail::fresh_budget(op.steps[idx]);
  op.error.clear();
}

} // namespace detail

next_action retry(operation& op, const workflow& wf, time_point now, std::vector<event>& out,
                  size_t from) {
  bool named = from < op.steps.size();
  if (named)
    reset_from(op, from, now, out);
  if (op.state == op_state::paused)
    return resume(op, wf, now, out);
  if (op.state == op_state::succeeded) {
    // Best-effort steps that gave up run again; the rest stays done. With
    // a named step, exactly that one and those after it run.
    for (auto& rec : op.steps)
      if (rec.state == step_state::incomplete && !named)
        detail::fresh_budget(rec);
  } else {
    detail::reopen(op);
  }
  op.state = op_state::pending;
  // Marks the new run in the log: a consumer counts one terminal event per
  // run, and a run that is queued or canceled at once shows no step.
  detail::emit(out, op, event_type::operation_retried, now);
  return detail::go_on(op, wf, now, out);
}

} // namespace stepwise::progress
