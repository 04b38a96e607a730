// Repairs a client asks for: a retry that runs steps again from a named
// one (`from_step`) after its input was patched, and a skip of the step
// an operation is stuck at. The checks that they are allowed are in
// commands.cpp; these only transform.
#include "engine/progress.hpp"
#include "engine/progress_detail.hpp"

namespace stepwise::progress {

void reset_from(operation& op, size_t from, time_point now, std::vector<event>& out) {
  boost::json::array names;
  for (size_t i = from; i < op.steps.size(); ++i) {
    auto& rec = op.steps[i];
    names.emplace_back(rec.name);
    // As if it never ran: state, attempts, times and error; the operation's
    // data stays (a step that runs again overwrites what it wrote).
    step_record fresh;
    fresh.name = std::move(rec.name);
    fresh.weight = rec.weight;
    fresh.run = rec.run + 1;
    rec = std::move(fresh);
  }
  op.updated_at = now;
  detail::emit(out, op, event_type::steps_reset, now);
  out.back().extra = {{"from_step", op.steps[from].name}, {"steps", std::move(names)}};
}

void note_patch(operation& op, std::vector<std::string> paths, time_point now,
                std::vector<event>& out) {
  boost::json::array arr;
  for (auto& p : paths)
    arr.emplace_back(std::move(p));
  op.updated_at = now;
  detail::emit(out, op, event_type::input_patched, now);
  out.back().extra = {{"paths", std::move(arr)}};
}

size_t restart_point(const operation& op) {
  auto idx = op.cursor();
  for (size_t i = 0; i < idx; ++i)
    if (op.steps[i].compensation != step_state::pending)
      return i;
  return idx;
}

next_action skip(operation& op, const workflow& wf, size_t idx, std::string reason, time_point now,
                 std::vector<event>& out) {
  bool ended = is_terminal(op.state);
  bool paused = op.state == op_state::paused;
  if (ended) {
    detail::reopen(op);
    // The new run is marked before its first change, as a retry's is.
    detail::emit(out, op, event_type::operation_retried, now);
  }
  auto& rec = op.steps[idx];
  rec.state = step_state::skipped;
  rec.next_attempt_at.reset();
  op.state = op_state::pending;
  op.pause_requested = false;
  op.wake_at.reset();
  op.updated_at = now;
  detail::emit(out, op, event_type::step_skipped, now, &rec);
  out.back().extra = {{"reason", std::move(reason)}};
  if (paused)
    detail::emit(out, op, event_type::operation_resumed, now);
  if (ended)
    return detail::go_on(op, wf, now, out);
  return begin_next(op, wf, now, out);
}

} // namespace stepwise::progress
