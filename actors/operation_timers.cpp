// The operation actor's wake-ups: its own timers (a due wait or retry, a
// step's timeout, the deadline, waiting for the lease) and admission.
#include "actors/operation_parts.hpp"

#include <algorithm>

#include "actors/messages.hpp"
#include "engine/progress.hpp"

namespace stepwise::op {

duration start_lead(const operation_state& st) {
  auto lead = st.rt->cfg.dispatch_lead;
  if (lead.count() <= 0 || st.op.state != op_state::waiting)
    return duration{0};
  // The step the wake-up begins: the one retried, or the one after a sleep.
  auto& steps = st.wf->steps();
  auto idx = st.op.cursor();
  if (idx < steps.size() && steps[idx].sleep)
    ++idx;
  if (idx >= steps.size())
    return duration{0};
  auto& def = steps[idx];
  // An inline body too: begun ahead, it runs on a worker (see execute).
  bool blocking = def.run && !def.sleep && !def.wait;
  // Steps run again for their transient values first would run early.
  bool rebuilds = st.upkeep.rebuild_due
                  && std::any_of(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(idx),
                                 [](const step_def& s) { return s.produces_transient; });
  return blocking && !rebuilds ? lead : duration{0};
}

namespace {

/// A due wait or retry: the wake-up, when its timer is still the current one.
void wake_up(self_ptr self, uint64_t gen) {
  auto& st = self->state;
  if (!st.work.current(gen) || st.work.attempt_running())
    return;
  std::vector<event> events;
  st.woken_due = st.op.wake_at.value_or(st.rt->clk->now());
  // Early by `start_lead`: the wake-up happens as of its due time, and
  // the attempt it begins waits for that time on the clock.
  auto now = std::max(st.rt->clk->now(), st.woken_due);
  auto act = progress::wake(st.op, *st.wf, now, events, unit_random(st));
  if (act.what == next_action::kind::run_step) {
    act.due = st.woken_due;
    st.start_at = now;
    // The wait was durable; the attempt starts now rather than after
    // one more commit, and its start is written with its result. A
    // crash before that write runs the attempt again.
    for (auto& e : events)
      st.commit.carry.emplace_back(std::move(e));
    execute(self, act);
  } else if (!events.empty()) {
    persist(self, std::move(events), act);
  }
}

} // namespace

void on_timer(self_ptr self, uint64_t gen) {
  timer_delivered(self);
  when_idle(self, [=] { wake_up(self, gen); });
}

void on_lease_wait(self_ptr self, uint64_t gen) {
  timer_delivered(self);
  when_idle(self, [=] {
    auto& st = self->state;
    if (st.work.current(gen) && !st.work.attempt_running())
      execute(self, st.awaiting_lease);
  });
}

void on_step_timeout(self_ptr self, uint64_t gen) {
  timer_delivered(self);
  when_idle(self, [=] {
    auto& st = self->state;
    if (!st.work.current(gen) || !st.work.attempt_running())
      return;
    // The attempt is not waited for: its late result has an old generation.
    abandon(self, "timed out");
    st.rt->stats.steps_timed_out.fetch_add(1, std::memory_order_relaxed);
    std::vector<event> events;
    auto act = progress::apply_timeout(st.op, *st.wf, st.op.cursor(), st.rt->clk->now(),
                                       unit_random(st), events);
    persist(self, std::move(events), act);
  });
}

void on_deadline(self_ptr self) {
  timer_delivered(self);
  when_idle(self, [=] {
    auto& st = self->state;
    // Compensations run to the end: the deadline does not cut them short.
    if (is_terminal(st.op.state) || st.op.state == op_state::compensating)
      return;
    abandon(self, "deadline exceeded");
    std::vector<event> events;
    auto act = progress::expire(st.op, *st.wf, st.rt->clk->now(), events);
    persist(self, std::move(events), act);
  });
}

void on_admitted(self_ptr self, int64_t revision) {
  when_idle(self, [=] {
    auto& st = self->state;
    if (st.op.state != op_state::pending || st.op.admission != admission::queued)
      return; // started already (a round names it until it has)
    // A round that read an older revision saw an earlier turn in line
    // (the operation ran and was retried since): the next round decides.
    if (st.op.revision != revision)
      return;
    st.op.admission = admission::admitted;
    std::vector<event> events;
    auto act = progress::begin_next(st.op, *st.wf, st.rt->clk->now(), events);
    persist(self, std::move(events), act);
  });
}

} // namespace stepwise::op
