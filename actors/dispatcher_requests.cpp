// The requests of clients (the embedding API and the HTTP gateway):
// start, get, cancel, retry, list, events, wait, shutdown.
#include <caf/event_based_actor.hpp>
#include <caf/message_handler.hpp>

#include "actors/dispatcher.hpp"
#include "engine/commands.hpp"
#include "engine/errc.hpp"
#include "engine/new_operation.hpp"

namespace stepwise {

namespace {

caf::error not_found(const std::string& id) {
  return make_error(errc::not_found, "no operation with id '" + id + "'");
}

/// Reads an operation (by id or by key, per `Atom`) on a reader and hands
/// what was found to `fn`; a store error answers `rp` instead.
template <class Atom, class F>
void read_then(dispatcher_ptr self, const std::string& key, caf::response_promise rp, F fn) {
  self->request(self->state.rt->reader(), caf::infinite, Atom::value, key)
    .then(
      [=](maybe_op& res) mutable {
        if (res.err)
          rp.deliver(res.err);
        else
          fn(res.value);
      },
      [=](caf::error& err) mutable { rp.deliver(err); });
}

/// A create whose idempotency key is taken: the same request gets the
/// existing operation, a different one a conflict.
void replay(dispatcher_ptr self, pending_create pc) {
  auto key = pc.op->idempotency_key;
  auto hash = pc.op->request_hash;
  auto rp = pc.rp;
  read_then<load_key_atom>(self, key, rp, [=](std::optional<operation>& found) mutable {
    if (!found) {
      rp.deliver(make_error(errc::store_failure,
                            "idempotency key '" + key
                              + "' is taken but its operation was not found"));
      return;
    }
    if (found->request_hash != hash) {
      rp.deliver(make_error(errc::idempotency_conflict,
                            "idempotency key '" + key
                              + "' was used with a different request"));
      return;
    }
    rp.deliver(start_result{self->state.rt->present(*found), false});
  });
}

void on_create_ack(dispatcher_ptr self, const commit_ack& ack) {
  auto& st = self->state;
  auto i = st.creates.find(ack.tag);
  if (i == st.creates.end())
    return;
  auto pc = std::move(i->second);
  st.creates.erase(i);
  if (ack.status == write_status::duplicate_key) {
    replay(self, std::move(pc));
    return;
  }
  if (ack.status != write_status::ok) {
    pc.rp.deliver(make_error(errc::store_failure, "create was not written"));
    return;
  }
  st.rt->stats.operations_started.fetch_add(1, std::memory_order_relaxed);
  pc.rp.deliver(start_result{st.rt->present(*pc.op), true});
  spawn_operation(self, *pc.op, pc.act, op_start::execute);
}

caf::result<start_result> on_start(dispatcher_ptr self, start_request& req) {
  auto& st = self->state;
  if (st.stopping)
    return make_error(errc::shutting_down, "the engine is shutting down");
  auto wf = st.rt->workflows.find(req.workflow, req.version);
  if (!wf) {
    std::string what = "unknown workflow '" + req.workflow + "'";
    if (req.version)
      what += " version " + std::to_string(*req.version);
    return make_error(errc::unknown_workflow, what);
  }
  auto now = st.rt->clk->now();
  auto op = new_operation(req, *wf, new_operation_id(now, st.node, ++st.counter), now);
  std::vector<event> events;
  auto act = progress::create(op, *wf, now, events);
  auto snap = std::make_shared<const operation>(std::move(op));
  auto rp = self->make_response_promise<start_result>();
  auto tag = ++st.next_tag;
  st.creates.emplace(tag, pending_create{rp, snap, act});
  if (!st.rt->writer->submit(checkpoint{checkpoint::kind::create, snap, std::move(events)},
                             caf::actor_cast<caf::actor>(self), tag)) {
    st.creates.erase(tag);
    return make_error(errc::shutting_down, "the engine is shutting down");
  }
  return rp;
}

/// Answers `get` for an operation without an actor from the store.
void get_from_store(dispatcher_ptr self, caf::response_promise rp, const std::string& id) {
  rp.delegate(self->state.rt->reader(), get_atom::value, id);
}

/// Passes a request on to the operation's actor. The actor quits right after
/// its terminal write, so a request can reach it just too late: then
/// `fallback` answers (from the store) instead of an error.
template <class... Ts>
void ask_actor(dispatcher_ptr self, const caf::actor& a, caf::response_promise rp,
               std::function<void()> fallback, Ts... xs) {
  self->request(a, caf::infinite, xs...)
    .then([=](operation& op) mutable { rp.deliver(std::move(op)); },
          [=](caf::error& err) mutable {
            if (err == caf::sec::request_receiver_down)
              fallback();
            else
              rp.deliver(std::move(err));
          });
}

void on_command(dispatcher_ptr self, caf::response_promise rp, const std::string& id,
                command cmd);

/// A command for an operation that has no actor: wake it if it sleeps, or
/// load it and decide.
void command_absent(dispatcher_ptr self, caf::response_promise rp,
                    const std::string& id, command cmd) {
  if (self->state.sleepers.contains(id)) {
    wake(self, id);
    on_command(self, rp, id, cmd);
    return;
  }
  read_then<load_atom>(self, id, rp, [=](std::optional<operation>& found) mutable {
    if (!found) {
      rp.deliver(not_found(id));
      return;
    }
    auto& op = *found;
    if (cmd == command::retry && allows(op, cmd)) {
      // A failed operation has no actor: give it one to carry the retry.
      auto a = spawn_operation(self, std::move(op), {}, op_start::idle);
      rp.delegate(a, command_atom::value, cmd);
      return;
    }
    if (self->state.rt->lease && !is_terminal(op.state)) {
      // Live, not here: another process sharing the store drives it.
      rp.deliver(make_error(errc::invalid_state,
                            "operation '" + id + "' is "
                              + std::string{to_string(op.state)}
                              + " in another process sharing the store: "
                                "send the request to that process"));
      return;
    }
    rp.deliver(refusal(op, cmd));
  });
}

void on_command(dispatcher_ptr self, caf::response_promise rp, const std::string& id,
                command cmd) {
  auto absent = [=] { command_absent(self, rp, id, cmd); };
  route(self, id,
        [=](const caf::actor& a) { ask_actor(self, a, rp, absent, command_atom::value, cmd); },
        absent);
}

} // namespace

caf::message_handler dispatcher_requests(dispatcher_ptr self) {
  return {
    [=](start_atom, start_request& req) { return on_start(self, req); },
    [=](commit_ack& ack) { on_create_ack(self, ack); },
    [=](get_atom, const std::string& id) -> caf::result<operation> {
      auto rp = self->make_response_promise();
      auto absent = [=] { get_from_store(self, rp, id); };
      route(self, id,
            [=](const caf::actor& a) { ask_actor(self, a, rp, absent, get_atom::value); },
            absent);
      return rp;
    },
    [=](command_atom, const std::string& id, command cmd) -> caf::result<operation> {
      auto rp = self->make_response_promise();
      on_command(self, rp, id, cmd);
      return rp;
    },
    [=](list_atom, list_filter& f) {
      auto max = self->state.rt->cfg.max_page;
      if (f.limit == 0 || f.limit > max)
        f.limit = max;
      return self->delegate(self->state.rt->reader(), list_atom::value, std::move(f));
    },
    [=](events_atom, int64_t after, uint64_t limit) {
      return self->delegate(self->state.rt->reader(), events_atom::value, after, limit);
    },
    [=](wait_atom, const std::string& id) -> caf::result<operation> {
      auto& st = self->state;
      auto rp = self->make_response_promise();
      if (st.live.count(id) || st.held.count(id) || st.sleepers.contains(id))
        st.waiters.emplace(id, rp);
      else
        get_from_store(self, rp, id);
      return rp;
    },
    [=](shutdown_atom) {
      auto& st = self->state;
      st.stopping = true;
      for (auto& kv : st.live)
        self->send_exit(kv.second, caf::exit_reason::user_shutdown);
      st.live.clear();
    },
  };
}

} // namespace stepwise
