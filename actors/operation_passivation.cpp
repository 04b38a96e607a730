// Passivation: an operation that waits long gives its actor up, and only
// its wake-up time stays, with the dispatcher.
//
// One hand-off, decided here alone: the actor sends the dispatcher
// (passivated_atom, id, due) as a request and stops being the operation's
// owner at once. The dispatcher, from then on, wakes the operation for
// whatever addresses it; what it routed to the actor before it took the
// hand-off is already in the actor's mailbox, and the actor passes each on
// (a request or a report goes back to the dispatcher, which routes it
// again and so wakes the operation, the answer going to whoever asked;
// anything else that needs the operation wakes it). The dispatcher's
// answer comes after all of those, so the actor quits on it with nothing
// left behind.
#include "actors/operation_parts.hpp"

#include "actors/messages.hpp"

namespace stepwise::op {

namespace {

/// What the actor does between its hand-off and the dispatcher's answer.
operation_actor::behavior_type handed_off(self_ptr self) {
  auto& dispatcher = self->state.dispatcher;
  auto& id = self->state.op.id;
  auto wake = [self] {
    auto& st = self->state;
    self->send(st.dispatcher, wake_atom::value, st.op.id);
  };
  return {
    [=](get_atom) { return self->delegate(dispatcher, get_atom::value, id); },
    [=](command_atom, const command_request& req) {
      return self->delegate(dispatcher, command_atom::value, id, req);
    },
    [=](signal_atom, signal_request& req) {
      return self->delegate(dispatcher, signal_atom::value, id, std::move(req));
    },
    // A stored command is read again once the operation has an actor.
    [=](command_atom, const command_request&, int64_t) -> caf::result<operation> {
      return caf::make_error(caf::sec::request_receiver_down);
    },
    [=](signal_atom, signal_request&, int64_t) -> caf::result<signal_result> {
      return caf::make_error(caf::sec::request_receiver_down);
    },
    [=](watch_done_atom, watch_reply& reply) {
      self->send(self->state.dispatcher, watch_done_atom::value, std::move(reply));
    },
    [=](admitted_atom, int64_t) { wake(); },
    [=](children_nudge_atom, uint64_t) { wake(); },
    // Nothing was under way: these belong to what came before the wait.
    [=](commit_ack&) {},
    [=](step_done&) {},
    [=](watch_ready&) {},
    [=](linger_atom, uint64_t, time_point) { timer_delivered(self); },
    [=](timer_atom, uint64_t) { timer_delivered(self); },
    [=](step_timeout_atom, uint64_t) { timer_delivered(self); },
    [=](lease_wait_atom, uint64_t) { timer_delivered(self); },
    [=](deadline_atom) { timer_delivered(self); },
    [=](passivate_atom, uint64_t) {},
    [=](settle_atom) {},
    [=](children_started&) {},
    [=](children_read&) {},
  };
}

void hand_off(self_ptr self) {
  auto& st = self->state;
  auto quit = [self] { self->quit(); };
  self->request(st.dispatcher, caf::infinite, passivated_atom::value, st.op.id, st.parking_due)
    .then(quit, [quit](caf::error&) { quit(); });
  self->become(handed_off(self));
}

} // namespace

bool passivate(self_ptr self, time_point due) {
  auto& st = self->state;
  if (st.op.deadline && *st.op.deadline < due)
    due = *st.op.deadline;
  if (due != time_point::max() && due - st.rt->clk->now() <= st.rt->cfg.wake_lead)
    return false;
  st.parking_due = due;
  // Decided once what is in the mailbox now is handled: a request
  // already there may start something after all.
  self->send(self, passivate_atom::value, st.work.generation());
  return true;
}

void on_passivate(self_ptr self, uint64_t gen) {
  auto& st = self->state;
  // A look at the children under way answers this actor: it stays.
  if (st.work.current(gen) && !st.commit.busy() && !st.work.attempt_running() && parked(st.op)
      && st.commit.deferred.empty() && !st.kids.reading) {
    hand_off(self);
    return;
  }
  // Still waiting but not passivated: arm the timer here instead.
  if (st.work.current(gen) && st.op.state == op_state::waiting && st.op.wake_at)
    arm(self, *st.op.wake_at - start_lead(st), timer_atom::value, st.work.generation());
}

} // namespace stepwise::op
