// Transient values in the operation actor. They are never stored, so an
// actor that takes over an operation that ran before (after a restart, a
// wake-up from passivation, for a retry) has none: the steps marked
// `producing_transient` that had succeeded run again, in order, before the
// next step that uses them, as a broker's provisioning re-runs its steps. Values of other
// steps cannot be rebuilt, so an actor holding them does not passivate.
#include <algorithm>

#include "actors/operation_parts.hpp"
#include "actors/step_runner.hpp"
#include "engine/errc.hpp"
#include "engine/redact.hpp"

namespace stepwise::op {

namespace {

void run_next_rebuild(self_ptr self) {
  auto& st = self->state;
  auto& up = st.upkeep;
  auto idx = up.left.front();
  auto& def = st.wf->steps()[idx];
  // The attempt that succeeded: same number, same idempotency key.
  auto token = st.work.begin_attempt(st.op.steps[idx].attempts);
  up.gen = st.work.generation();
  auto input = opened_input(st);
  auto ctx = context_for(st, def.name, st.work.attempt(), input ? *input : st.op.input, st.op.data,
                         std::move(st.transient), token);
  st.transient = {};
  attempt_target to{self,    up.gen,       st.rt->step_pool, st.rt->clk->now(), false,
                    nullptr, st.rt->lease, st.lease_epoch,   st.rt->clk};
  auto res = input ? run_step(to, st.wf, idx, std::move(ctx), false)
                   : failed_attempt(std::move(ctx), message_of(input.error()));
  // A result that is there at once (an inline body, a skipping condition,
  // an input that cannot be opened) comes back the way a worker's does.
  if (res)
    self->send(
      self, step_done{up.gen, st.work.attempt(), std::make_shared<step_result>(std::move(*res))});
}

/// Returns whether step `idx` reads transient values: it says so, or no
/// step of the workflow does.
bool uses_transient(const workflow& wf, size_t idx) {
  if (wf.steps()[idx].uses_transient)
    return true;
  return std::none_of(wf.steps().begin(), wf.steps().end(),
                      [](const step_def& s) { return s.uses_transient; });
}

} // namespace

bool prepare_transient(self_ptr self, const next_action& act) {
  auto& st = self->state;
  auto& up = st.upkeep;
  up.before.reset();
  up.given.reset();
  if (up.rebuild_due && !act.compensate && uses_transient(*st.wf, act.step)) {
    up.left.clear();
    for (size_t i = 0; i < act.step && i < st.op.steps.size(); ++i)
      if (st.wf->steps()[i].produces_transient && st.op.steps[i].state == step_state::succeeded)
        up.left.push_back(i);
    if (!up.left.empty()) {
      up.before = act;
      st.transient = {};
      run_next_rebuild(self);
      return true;
    }
    up.rebuild_due = false;
  }
  if (act.compensate || !st.wf->steps()[act.step].produces_transient)
    up.given = st.transient;
  return false;
}

bool take_rebuilt(self_ptr self, step_done& msg) {
  auto& st = self->state;
  auto& up = st.upkeep;
  if (!up.before || msg.generation != up.gen)
    return false;
  auto& r = *msg.result;
  st.op.data = std::move(r.data);
  st.transient = std::move(r.transient);
  auto idx = up.left.front();
  up.left.erase(up.left.begin());
  auto act = *up.before;
  if (r.skipped || r.result.what == outcome::kind::done) {
    if (!up.left.empty()) {
      run_next_rebuild(self);
      return true;
    }
    up.before.reset();
    up.rebuild_due = false;
    execute(self, act);
    return true;
  }
  // It did not succeed this time: the step that waited for it takes its
  // outcome (a retry of that step, or its failure), and every value is
  // built again before the next attempt.
  up.before.reset();
  up.left.clear();
  auto result = std::move(r.result);
  result.message = "step '" + st.wf->steps()[idx].name
                   + "' (run again for its transient values): " + result.message;
  result.message = scrub(std::move(result.message), secrets_of(st, r.revealed));
  st.transient = {};
  auto now = std::max(r.finished_at, st.op.updated_at);
  std::vector<event> events;
  auto next = progress::apply_result(st.op, *st.wf, act.step, result, false, r.took, now,
                                     unit_random(st), events);
  persist(self, std::move(events), next);
  return true;
}

void note_transient(self_ptr self) {
  auto& up = self->state.upkeep;
  if (up.given && self->state.transient != *up.given)
    up.pinned = true;
  up.given.reset();
}

bool may_drop_transient(const operation_state& st) {
  return st.transient.empty() || !st.upkeep.pinned;
}

} // namespace stepwise::op
