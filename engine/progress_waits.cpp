// The transitions of wait steps: a wait begins, a signal or a watcher's
// report ends it, or its timeout does.
#include <algorithm>
#include <string>

#include "engine/progress.hpp"
#include "engine/progress_detail.hpp"

namespace stepwise::progress {

namespace {

using detail::emit;

/// Returns the first stored signal named `name` that no wait took yet.
signal_record* unconsumed(operation& op, const std::string& name) {
  if (name.empty())
    return nullptr;
  for (auto& s : op.signals)
    if (s.name == name && s.consumed_by.empty())
      return &s;
  return nullptr;
}

/// Ends the wait of step `idx` with signal `sig`: its payload goes to the
/// data, and the step succeeded.
next_action take(operation& op, const workflow& wf, size_t idx, signal_record& sig, time_point now,
                 std::vector<event>& out) {
  auto& rec = op.steps[idx];
  sig.consumed_by = rec.name;
  op.data[wf.steps()[idx].wait->signal_key] = sig.payload;
  rec.state = step_state::succeeded;
  rec.next_attempt_at.reset();
  rec.duration_ms =
    std::chrono::duration_cast<std::chrono::milliseconds>(now - rec.last_attempt_at.value_or(now))
      .count();
  op.state = op_state::in_progress;
  op.wake_at.reset();
  op.updated_at = now;
  emit(out, op, event_type::step_succeeded, now, &rec);
  return begin_next(op, wf, now, out);
}

/// Returns whether step `idx` is the current one and waits now.
bool awaiting(const operation& op, const workflow& wf, size_t idx) {
  return op.state == op_state::waiting && idx == op.cursor() && idx < op.steps.size()
         && wf.steps()[idx].wait && op.steps[idx].state == step_state::running;
}

} // namespace

namespace detail {

next_action begin_wait(operation& op, const workflow& wf, size_t idx, time_point now,
                       std::vector<event>& out) {
  auto& def = wf.steps()[idx];
  if (auto* sig = unconsumed(op, def.wait->signal))
    return take(op, wf, idx, *sig, now, out);
  auto& rec = op.steps[idx];
  auto due = def.wait->timeout ? now + *def.wait->timeout : time_point::max();
  if (def.wait->timeout)
    rec.next_attempt_at = due;
  op.state = op_state::waiting;
  op.wake_at = rec.next_attempt_at;
  op.updated_at = now;
  emit(out, op, event_type::operation_waiting, now, &rec);
  return {next_action::kind::await, idx, rec.attempts, due};
}

next_action wait_timed_out(operation& op, const workflow& wf, size_t idx, time_point now,
                           double unit_random, std::vector<event>& out) {
  auto& rec = op.steps[idx];
  auto& def = wf.steps()[idx];
  auto limit =
    std::chrono::duration_cast<std::chrono::milliseconds>(def.wait->timeout.value_or(duration{0}));
  std::string what = def.wait->children ? std::string{"end of enough children"}
                     : def.wait->queue
                       ? "answer to the task on queue '" + def.wait->queue->queue + "'"
                     : def.wait->signal.empty() ? std::string{"the watched task"}
                                                : "signal '" + def.wait->signal + "'";
  auto reason = "no " + what + " within " + std::to_string(limit.count()) + " ms";
  rec.duration_ms = limit.count();
  rec.last_error = reason;
  op.state = op_state::in_progress;
  emit(out, op, event_type::step_timed_out, now, &rec, reason);
  // Without a policy a wait that timed out fails: waiting again forever
  // would make the timeout mean nothing.
  if (!def.policy)
    return give_up(op, wf, idx, std::move(reason), now, out);
  return try_again(op, wf, idx, policy_delay(def, rec.attempts, unit_random), std::move(reason),
                   now, out);
}

} // namespace detail

next_action apply_signal(operation& op, const workflow& wf, signal_record sig, time_point now,
                         std::vector<event>& out) {
  op.signals.emplace_back(std::move(sig));
  auto& stored = op.signals.back();
  op.updated_at = now;
  emit(out, op, event_type::signal_received, now);
  out.back().extra = {{"name", stored.name}, {"signal_id", stored.id}};
  auto idx = op.cursor();
  if (awaiting(op, wf, idx) && wf.steps()[idx].wait->signal == stored.name)
    return take(op, wf, idx, stored, now, out);
  return {};
}

std::optional<next_action> apply_watch(operation& op, const workflow& wf, const watch_reply& reply,
                                       const std::vector<std::string>& secrets, time_point now,
                                       double unit_random, std::vector<event>& out) {
  auto idx = op.cursor();
  if (!awaiting(op, wf, idx) || op.steps[idx].name != reply.step
      || op.steps[idx].attempts != reply.attempt || !is_watched(*wf.steps()[idx].wait)
      || (reply.run && *reply.run != op.steps[idx].run))
    return std::nullopt;
  // Compared at the store's grain: the attempt may have been read back.
  using std::chrono::milliseconds;
  auto began = op.steps[idx].last_attempt_at;
  if (reply.since && began
      && std::chrono::duration_cast<milliseconds>(reply.since->time_since_epoch())
           != std::chrono::duration_cast<milliseconds>(began->time_since_epoch()))
    return std::nullopt;
  for (auto& kv : reply.result.data)
    op.data[kv.key()] = kv.value();
  op.state = op_state::in_progress;
  auto emitted = reply.result.emitted;
  auto events = emitted_events(op, wf, secrets, emitted, now);
  out.insert(out.end(), std::make_move_iterator(events.begin()),
             std::make_move_iterator(events.end()));
  auto& rec = op.steps[idx];
  auto took = now - rec.last_attempt_at.value_or(now);
  return apply_result(op, wf, idx, reply.result.result, false, took, now, unit_random, out);
}

bool watching(const operation& op, const workflow& wf) {
  return awaiting(op, wf, op.cursor()) && is_watched(*wf.steps()[op.cursor()].wait);
}

} // namespace stepwise::progress
