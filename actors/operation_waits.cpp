// Wait steps in the operation actor: the wait's task is described on a
// worker and handed to its watcher; the operation then passivates until a
// signal, the watcher's report or the wait's timeout ends the wait.
#include <caf/send.hpp>

#include "actors/messages.hpp"
#include "actors/operation_parts.hpp"
#include "actors/task_description.hpp"
#include "engine/errc.hpp"

namespace stepwise::op {

namespace {

/// Arms the wait's timeout, if it has one.
void arm_timeout(self_ptr self, time_point due) {
  if (due != time_point::max())
    arm(self, due, timer_atom::value, self->state.work.generation());
}

/// Passivates until `due` (the wait's timeout; `max` for none), or keeps
/// the actor and arms the timeout when that is near or the operation holds
/// transient values (which passivation would lose). A watched task often
/// settles at the watcher's first poll, moments later: that wait keeps its
/// actor for `passivate_after` first, so that a quick report costs no
/// store read and no new actor.
void park(self_ptr self, time_point due, bool watched) {
  auto& st = self->state;
  auto now = st.rt->clk->now();
  auto linger = st.rt->cfg.passivate_after;
  bool far = due == time_point::max() || due - now >= linger;
  if (far && may_drop_transient(st)) {
    if (watched && linger > duration{0}) {
      arm(self, now + linger, linger_atom::value, st.work.generation(), due);
      return;
    }
    if (passivate(self, due))
      return;
  }
  arm_timeout(self, due);
}

/// Describes the wait's task on a worker (the description may read the
/// store); the answer comes back as `watch_ready`.
void describe(self_ptr self, size_t idx, int32_t attempt) {
  auto& st = self->state;
  auto& def = st.wf->steps()[idx];
  auto me = caf::actor_cast<operation_actor>(self);
  auto input = opened_input(st);
  if (!input) {
    watch_ready out;
    out.generation = st.work.generation();
    out.error = message_of(input.error());
    self->send(self, std::move(out));
    return;
  }
  auto ctx = std::make_shared<step_context>(
    context_for(st, def.name, attempt, *input, st.op.data, transient_map{}));
  st.rt->step_pool->submit([wf = st.wf, idx, ctx, me, gen = st.work.generation()] {
    watch_ready out;
    out.generation = gen;
    try {
      auto task = wf->steps()[idx].wait->task(*ctx);
      if (task)
        out.task = std::move(*task);
      else
        out.error = message_of(task.error());
    } catch (const std::exception& e) {
      out.error = std::string{"describing the task threw: "} + e.what();
    } catch (...) {
      out.error = "describing the task threw a non-standard exception";
    }
    caf::anon_send(me, std::move(out));
  });
}

void hand_to_watcher(self_ptr self, watch_ready& ready);

/// Describes a task step's task at once (nothing in it blocks): the
/// queue, the operation's input (secrets opened: the worker needs them)
/// and data, and what bounds the attempt.
void describe_task(self_ptr self, size_t idx) {
  auto& st = self->state;
  auto& def = st.wf->steps()[idx];
  auto& q = *def.wait->queue;
  watch_ready out;
  out.generation = st.work.generation();
  auto input = opened_input(st);
  if (!input) {
    out.error = message_of(input.error());
  } else {
    out.task = stepwise::describe_task(q, st.op.workflow, **input, st.op.data,
                                       st.op.steps[idx].next_attempt_at);
  }
  hand_to_watcher(self, out);
}

void hand_to_watcher(self_ptr self, watch_ready& ready) {
  auto& st = self->state;
  if (!st.work.current(ready.generation) || !progress::watching(st.op, *st.wf))
    return; // the wait ended meanwhile
  auto idx = st.op.cursor();
  auto& rec = st.op.steps[idx];
  auto& def = st.wf->steps()[idx];
  if (!ready.error.empty()) {
    // Nothing to watch: the attempt fails like any step's.
    std::vector<event> events;
    auto now = st.rt->clk->now();
    st.op.state = op_state::in_progress;
    auto act = progress::apply_result(st.op, *st.wf, idx,
                                      fail("cannot describe the task to watch: " + ready.error),
                                      false, duration{0}, now, unit_random(st), events);
    persist(self, std::move(events), act);
    return;
  }
  watch_request req{st.op.id,
                    rec.name,
                    rec.attempts,
                    rec.last_attempt_at.value_or(st.rt->clk->now()),
                    std::move(ready.task),
                    watch_report_receiver{st.dispatcher},
                    st.lease_epoch,
                    rec.run};
  self->send(watcher_of(st, def), watch_atom::value, std::move(req));
  st.watched.step = idx;
  st.watched.attempt = rec.attempts;
  park(self, rec.next_attempt_at.value_or(time_point::max()), true);
}

void apply_report(self_ptr self, watch_reply& reply) {
  auto& st = self->state;
  std::vector<event> events;
  auto act = progress::apply_watch(st.op, *st.wf, reply, secrets_of(st), st.rt->clk->now(),
                                   unit_random(st), events);
  if (!act)
    return; // about a wait that is over
  persist(self, std::move(events), *act);
}

/// Returns whether the wait step's condition says to skip it. It runs on
/// the actor (like an asynchronous step's), so it must not block.
bool skip_wait(self_ptr self, const step_def& def, int32_t attempt) {
  auto& st = self->state;
  if (!def.condition)
    return false;
  // An input that cannot be opened does not skip: describing the task
  // fails the attempt with the reason.
  auto input = opened_input(st);
  if (!input)
    return false;
  auto ctx = context_for(st, def.name, attempt, *input, st.op.data, transient_map{});
  try {
    return !(*def.condition)(ctx);
  } catch (...) {
    return false;
  }
}

} // namespace

void await(self_ptr self, const next_action& act) {
  auto& st = self->state;
  st.work.begin_wait();
  auto& def = st.wf->steps()[act.step];
  if (skip_wait(self, def, act.attempt)) {
    std::vector<event> events;
    st.op.state = op_state::in_progress;
    auto act2 = progress::apply_result(st.op, *st.wf, act.step, done(), true, duration{0},
                                       st.rt->clk->now(), unit_random(st), events);
    persist(self, std::move(events), act2);
    return;
  }
  if (def.wait->children) {
    await_children(self, act);
    return;
  }
  if (is_watched(*def.wait) && !st.watched.is(act.step, act.attempt)) {
    if (def.wait->queue)
      describe_task(self, act.step);
    else
      describe(self, act.step, act.attempt);
    return;
  }
  park(self, act.due, is_watched(*def.wait));
}

void on_ready(self_ptr self, watch_ready& ready) {
  when_idle(self, [=]() mutable { hand_to_watcher(self, ready); });
}

void on_report(self_ptr self, watch_reply& reply) {
  when_idle(self, [=]() mutable { apply_report(self, reply); });
}

void on_linger(self_ptr self, uint64_t gen, time_point due) {
  timer_delivered(self);
  when_idle(self, [=] {
    if (self->state.work.current(gen) && self->state.op.state == op_state::waiting
        && !passivate(self, due))
      arm_timeout(self, due);
  });
}

} // namespace stepwise::op
