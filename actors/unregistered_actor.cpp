#include "actors/unregistered_actor.hpp"

#include "actors/messages.hpp"
#include "engine/commands.hpp"
#include "engine/errc.hpp"

namespace stepwise {

namespace {

using self_ptr = operation_actor::stateful_pointer<unregistered_state>;

std::string why(const unregistered_state& st) {
  auto& op = *st.committed;
  return progress::unregistered_message(op.workflow, op.workflow_version,
                                        st.rt->workflows.versions(op.workflow));
}

/// Ends the actor as an operation actor ends: the dispatcher answers the
/// waiters with `snap` (or from the store, when null).
void finish(self_ptr self, op_snapshot snap) {
  auto id = self->state.committed->id;
  self->send(self->state.dispatcher, finished_atom::value, id, std::move(snap));
  self->quit();
}

/// Answers a request about an operation that has ended here: the actor
/// was given to it for that request only (a retry, say), and ends.
template <class T>
caf::result<T> answered(self_ptr self, caf::expected<T> x) {
  finish(self, self->state.committed);
  if (x)
    return std::move(*x);
  return std::move(x.error());
}

caf::error refuse(const unregistered_state& st, const command_request& req) {
  auto& op = *st.committed;
  auto now = st.rt->clk->now();
  if (auto err = check_fields(op, req))
    return err;
  if (!allows(op, req, now))
    return refusal(op, req, now);
  return make_error(errc::invalid_state, "cannot " + std::string{to_string(req.kind)}
                                           + " operation '" + op.id + "': " + why(st));
}

caf::expected<signal_result> signal_answer(const unregistered_state& st,
                                           const std::string& signal_id) {
  if (has_signal(*st.committed, signal_id))
    return signal_result{st.rt->present(*st.committed), true};
  return signal_refusal(*st.committed);
}

} // namespace

operation_actor::behavior_type unregistered_actor(self_ptr self, runtime_ptr rt,
                                                  internal_dispatcher_actor dispatcher,
                                                  operation op) {
  auto& st = self->state;
  st.rt = std::move(rt);
  st.dispatcher = std::move(dispatcher);
  st.committed = std::make_shared<const operation>(op);
  if (!is_terminal(op.state)) {
    std::vector<event> events;
    write_log(st.rt->cfg.log, log_level::warn, "operation " + op.id + " fails: " + why(st));
    progress::fail_unregistered(op, st.rt->workflows.versions(op.workflow), st.rt->clk->now(),
                                events);
    op.revision += 1;
    st.in_flight = std::make_shared<const operation>(std::move(op));
    checkpoint cp{checkpoint::kind::update, st.in_flight, std::move(events)};
    if (!st.rt->writer->submit(std::move(cp), commit_ack_receiver{self}, 0))
      self->quit(caf::exit_reason::user_shutdown);
  }
  // Every request is refused (or a repeated signal answered) without a
  // write: a stored one (its seq) is dropped by the process that sent it.
  auto on_command = [=](const command_request& req) -> caf::result<operation> {
    if (!self->state.in_flight)
      return answered<operation>(self, refuse(self->state, req));
    auto rp = self->make_response_promise<operation>();
    self->state.deferred.emplace_back([=]() mutable { rp.deliver(refuse(self->state, req)); });
    return rp;
  };
  auto on_signal = [=](signal_request& req) -> caf::result<signal_result> {
    if (!self->state.in_flight)
      return answered<signal_result>(self, signal_answer(self->state, req.signal_id));
    auto rp = self->make_response_promise<signal_result>();
    auto sid = req.signal_id;
    self->state.deferred.emplace_back([=]() mutable {
      auto res = signal_answer(self->state, sid);
      if (res)
        rp.deliver(std::move(*res));
      else
        rp.deliver(std::move(res.error()));
    });
    return rp;
  };
  return {
    [=](commit_ack& ack) {
      auto& st = self->state;
      // Not written (another process drives the operation now): requests
      // are answered with the last state this process knew.
      bool ok = ack.status == write_status::ok;
      if (ok) {
        st.committed = std::move(st.in_flight);
        st.rt->stats.operations_failed.fetch_add(1, std::memory_order_relaxed);
      }
      st.in_flight = nullptr;
      auto deferred = std::move(st.deferred);
      st.deferred.clear();
      for (auto& fn : deferred)
        fn();
      finish(self, ok ? st.committed : op_snapshot{});
    },
    [=](get_atom) -> operation { return self->state.rt->present(*self->state.committed); },
    [=](command_atom, const command_request& req) { return on_command(req); },
    [=](signal_atom, signal_request& req) { return on_signal(req); },
    [=](command_atom, const command_request& req, int64_t) { return on_command(req); },
    [=](signal_atom, signal_request& req, int64_t) { return on_signal(req); },
    // Nothing runs, so nothing of a running operation comes: a watcher's
    // report about a wait that can no longer go on, at most.
    [=](watch_done_atom, watch_reply&) {},
    [=](step_done&) {},
    [=](watch_ready&) {},
    [=](linger_atom, uint64_t, time_point) {},
    [=](timer_atom, uint64_t) {},
    [=](step_timeout_atom, uint64_t) {},
    [=](lease_wait_atom, uint64_t) {},
    [=](deadline_atom) {},
    [=](admitted_atom, int64_t) {},
    [=](passivate_atom, uint64_t) {},
    [=](settle_atom) {},
    [=](children_started&) {},
    [=](children_read&) {},
    [=](children_nudge_atom, uint64_t) {},
  };
}

} // namespace stepwise
