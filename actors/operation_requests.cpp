// The operation actor's answers to client requests: get, commands
// (cancel, retry, pause, resume, skip) and signals.
#include "actors/messages.hpp"
#include "actors/operation_parts.hpp"
#include "engine/commands.hpp"
#include "engine/errc.hpp"

namespace stepwise::op {

namespace {

/// A retry's input patch, ahead of its new run. Fails, changing nothing,
/// when the patched input cannot be sealed.
caf::error prepare_retry(self_ptr self, const command_request& req, time_point now,
                         std::vector<event>& events) {
  auto& st = self->state;
  if (req.input_patch) {
    auto paths = patch_input(st, *req.input_patch);
    if (!paths)
      return std::move(paths.error());
    progress::note_patch(st.op, std::move(*paths), now, events);
  }
  return caf::error{};
}

/// Carries out a client's command, or refuses it for the current state.
void carry_out(self_ptr self, const command_request& req,
               caf::typed_response_promise<operation>& rp) {
  auto& st = self->state;
  auto now = st.rt->clk->now();
  auto err = check_fields(st.op, req);
  if (!err && !allows(st.op, req, now))
    err = refusal(st.op, req, now);
  std::vector<event> events;
  if (!err && req.kind == command::retry)
    err = prepare_retry(self, req, now, events);
  if (err) {
    rp.deliver(std::move(err));
    // An actor given to a terminal operation for a retry has nothing to do.
    if (is_terminal(st.op.state))
      self->send(self, settle_atom::value);
    return;
  }
  next_action act;
  switch (req.kind) {
    case command::cancel:
      abandon(self, "canceled");
      act = progress::cancel(st.op, *st.wf, now, events);
      break;
    case command::retry:
      act = progress::retry(st.op, *st.wf, now, events,
                            req.from_step.empty() ? SIZE_MAX : step_index(st.op, req.from_step));
      break;
    case command::skip:
      if (st.op.state == op_state::waiting)
        abandon(self, "skipped"); // the due retry's timer
      act = progress::skip(st.op, *st.wf, step_index(st.op, req.step), req.reason, now, events);
      break;
    case command::pause:
      if (st.work.attempt_running()) {
        // At the next step boundary: the attempt is asked to stop, and its
        // result decides where the operation pauses.
        progress::request_pause(st.op, now);
        st.pause_by = req.by; // for the pause the attempt's end takes
        stop_attempt(self, "paused");
      } else {
        abandon(self, "paused"); // a due retry's or a wait's timer
        act = progress::pause(st.op, "pause requested", now, events);
      }
      break;
    case command::resume:
      act = progress::resume(st.op, *st.wf, now, events);
      break;
  }
  // Every event the command writes is its doing.
  stamp_by(events, req.by);
  st.commit.waiters.emplace_back(rp);
  persist(self, std::move(events), act);
}

/// Stores a signal (ending the wait it ends), or answers a repeat.
void store_signal(self_ptr self, signal_request& req,
                  caf::typed_response_promise<signal_result>& rp) {
  auto& st = self->state;
  // A repeat is answered as such even after the operation ended: the
  // sender's retry of a signal that was taken must not look like a refusal.
  if (has_signal(st.op, req.signal_id)) {
    rp.deliver(signal_result{st.rt->present(*st.commit.durable), true});
    return;
  }
  if (is_terminal(st.op.state)) {
    rp.deliver(signal_refusal(st.op));
    self->send(self, settle_atom::value);
    return;
  }
  auto now = st.rt->clk->now();
  signal_record sig;
  sig.name = std::move(req.name);
  sig.id = req.signal_id.empty() ? "sig-" + std::to_string(st.op.signals.size() + 1)
                                 : std::move(req.signal_id);
  sig.payload = std::move(req.payload);
  sig.received_at = now;
  std::vector<event> events;
  auto act = progress::apply_signal(st.op, *st.wf, std::move(sig), now, events);
  stamp_by(events, req.by);
  st.commit.waiters.emplace_back(rp);
  persist(self, std::move(events), act);
}

} // namespace

caf::result<operation> on_get(self_ptr self) {
  auto& st = self->state;
  if (!st.commit.durable) {
    // Its create is being written: answered once it is.
    auto rp = self->make_response_promise<operation>();
    when_idle(self,
              [=]() mutable { rp.deliver(self->state.rt->present(*self->state.commit.durable)); });
    return rp;
  }
  if (st.rt->lease && (st.rt->lease->epoch() != st.lease_epoch || !st.rt->lease->holds()))
    // Another process may drive the operation by now and have written it
    // since: the dispatcher answers from the store instead.
    return make_error(errc::stale_revision, "this process's lease on operation '" + st.op.id
                                              + "' is not sure: read it from the store");
  if (st.commit.in_flight == nullptr)
    return st.rt->present(*st.commit.durable);
  // A commit in flight may be read already (its events, a list) before its
  // ack reaches this actor: the answer waits for the ack, so no reader sees
  // the operation older than something it has read of it.
  auto rp = self->make_response_promise<operation>();
  st.commit.waiters.emplace_back(rp);
  return rp;
}

// `consumes`: the stored command (0: none) that the checkpoint carrying
// the request out deletes. Set only around the call: a request refused, or
// answered without a write, leaves no stored command on the next write.
caf::result<operation> on_command(self_ptr self, const command_request& req, int64_t consumes) {
  auto rp = self->make_response_promise<operation>();
  when_idle(self, [=]() mutable {
    self->state.commit.consumed = consumes;
    carry_out(self, req, rp);
    self->state.commit.consumed = 0;
  });
  return rp;
}

caf::result<signal_result> on_signal(self_ptr self, signal_request& req, int64_t consumes) {
  auto rp = self->make_response_promise<signal_result>();
  when_idle(self, [=]() mutable {
    self->state.commit.consumed = consumes;
    store_signal(self, req, rp);
    self->state.commit.consumed = 0;
  });
  return rp;
}

void on_settle(self_ptr self) {
  auto& st = self->state;
  if (is_terminal(st.op.state) && !st.commit.busy() && !st.work.attempt_running()
      && st.commit.deferred.empty())
    execute(self, {next_action::kind::finish, 0, 0, {}});
}

} // namespace stepwise::op
