// Applying the result of an attempt to the operation (apart from the actor's
// lifecycle in operation_actor.cpp): a late one is dropped, a current one
// moves the operation on and is checkpointed (persist, for every change of
// the operation after its create).
#include <algorithm>
#include <cassert>

#include "actors/operation_parts.hpp"

#include "actors/messages.hpp"
#include "engine/redact.hpp"

namespace stepwise::op {

double unit_random(operation_state& st) {
  return std::uniform_real_distribution<double>{0.0, 1.0}(st.rng);
}

namespace {

/// Tells the watcher of the wait the durable state had, if the new state
/// left that wait (a signal came first, a timeout, cancel, pause, the
/// deadline, or the report itself): it stops following the task.
void unwatch_left_wait(self_ptr self) {
  auto& st = self->state;
  // A wait the new state left is followed no more: the next wait of the
  // same step and attempt number (attempts count afresh after a resume or
  // a retry) is told to the watcher again.
  if (!progress::watching(st.op, *st.wf)
      || !st.watched.is(st.op.cursor(), st.op.steps[st.op.cursor()].attempts))
    st.watched = {};
  if (!st.commit.durable || !progress::watching(*st.commit.durable, *st.wf))
    return;
  auto idx = st.commit.durable->cursor();
  auto attempt = st.commit.durable->steps[idx].attempts;
  if (progress::watching(st.op, *st.wf) && st.op.cursor() == idx
      && st.op.steps[idx].attempts == attempt)
    return;
  self->send(watcher_of(st, st.wf->steps()[idx]), unwatch_atom::value, st.op.id, attempt);
}

} // namespace

void persist(self_ptr self, std::vector<event> events, next_action act) {
  auto& st = self->state;
  assert(!st.commit.busy()); // callers wait for the commit in flight (when_idle)
  if (st.rt->lease && st.rt->lease->epoch() != st.lease_epoch) {
    // Begun under a lease that was lost (its stop is on its way): written
    // now, the checkpoint would land under the next lease with no actor
    // left to drive what it starts (a retry's new run).
    auto lost = make_error(errc::stale_revision,
                           "this process lost its lease on operation '" + st.op.id
                             + "' while the request was carried out; nothing was written");
    for (auto& w : st.commit.waiters)
      std::visit([&](auto& rp) { rp.deliver(lost); }, w);
    st.commit.waiters.clear();
    self->quit(caf::exit_reason::user_shutdown);
    return;
  }
  if (!st.pause_by.empty() && !st.op.pause_requested) {
    // The pause asked for while an attempt ran is taken (or withdrawn).
    for (auto& e : events)
      if (e.type == event_type::operation_paused && e.by.empty())
        e.by = st.pause_by;
    st.pause_by.clear();
  }
  unwatch_left_wait(self);
  leave_children_wait(self);
  if (!st.commit.carry.empty()) {
    events.insert(events.begin(), std::make_move_iterator(st.commit.carry.begin()),
                  std::make_move_iterator(st.commit.carry.end()));
    st.commit.carry.clear();
  }
  st.op.revision += 1;
  st.commit.begin(std::make_shared<const operation>(st.op), act);
  checkpoint cp{checkpoint::kind::update, st.commit.in_flight, std::move(events)};
  cp.state_changes = st.commit.durable && st.commit.durable->state != st.op.state;
  cp.consumed_command = std::exchange(st.commit.consumed, 0);
  if (!st.rt->writer->submit(std::move(cp), commit_ack_receiver{self}, st.work.generation())) {
    // Shutting down: the store keeps the last durable state, which a
    // restart resumes from.
    self->quit(caf::exit_reason::user_shutdown);
  }
}

void on_step_done(self_ptr self, step_done& msg) {
  auto& st = self->state;
  if (!st.work.end_attempt(msg.generation)) {
    // A late result of an attempt that was abandoned (timed out, canceled,
    // paused, past the deadline): a newer state stands, this one is dropped.
    st.rt->stats.steps_discarded.fetch_add(1, std::memory_order_relaxed);
    write_log(st.rt->cfg.log, log_level::info,
              "operation " + st.op.id + ": dropped the late result of attempt "
                + std::to_string(msg.attempt) + " (abandoned)");
    return;
  }
  // Settled on every way out, once the result's checkpoint is queued.
  struct settle_on_exit {
    work_in_hand& work;
    bool later = false;
    ~settle_on_exit() {
      if (!later)
        work.settle();
    }
  } settled{st.work};
  if (take_rebuilt(self, msg))
    return;
  auto& r = *msg.result;
  st.op.data = std::move(r.data);
  st.transient = std::move(r.transient);
  note_transient(self);
  auto& m = st.rt->stats;
  m.step_duration_seconds.observe(std::chrono::duration<double>(r.took).count());
  if (!r.result.message.empty())
    r.result.message = scrub(std::move(r.result.message), secrets_of(st, r.revealed));
  if (r.skipped || r.result.what == outcome::kind::done)
    m.steps_succeeded.fetch_add(1, std::memory_order_relaxed);
  else if (r.result.what == outcome::kind::retry)
    m.steps_retried.fetch_add(1, std::memory_order_relaxed);
  else
    m.steps_failed.fetch_add(1, std::memory_order_relaxed);
  // Never earlier than the last transition: clocks of threads may differ
  // by a hair, and a record must not go back in time.
  auto now = std::max(r.finished_at, st.op.updated_at);
  std::vector<event> events;
  if (!r.emitted.empty())
    events = progress::emitted_events(st.op, *st.wf, secrets_of(st, r.revealed), r.emitted, now);
  if (!r.children.empty()) {
    if (st.op.state != op_state::compensating) {
      // Its checkpoint waits for the children's creates (write_started
      // settles it): until then the attempt counts as running, or a drain
      // that sees none running could stop before it is written.
      settled.later = true;
      start_children(self, r, now, std::move(events));
      return;
    }
    r.result = fail("a compensation cannot start children");
  }
  auto act =
    st.op.state == op_state::compensating
      ? progress::apply_compensation(st.op, *st.wf, r.result, r.took, now, unit_random(st), events)
      : progress::apply_result(st.op, *st.wf, st.op.cursor(), r.result, r.skipped, r.took, now,
                               unit_random(st), events);
  persist(self, std::move(events), act);
}

} // namespace stepwise::op
