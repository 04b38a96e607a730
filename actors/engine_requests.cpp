#include <caf/event_based_actor.hpp>
#include <caf/message_handler.hpp>

#include "actors/engine_actor.hpp"
#include "actors/messages.hpp"
#include "actors/new_operation.hpp"
#include "actors/operation_actor.hpp"
#include "engine/errc.hpp"

// The handlers of the engine's public requests (start, get, cancel, retry,
// list, events, wait, shutdown). Routing and passivation live in
// engine_actor.cpp.

namespace stepwise {

using self_ptr = caf::stateful_actor<engine_state>*;

void engine_route(self_ptr self, const std::string& id,
                  std::function<void(const caf::actor&)> forward,
                  std::function<void()> absent);
void engine_wake(self_ptr self, const std::string& id);
caf::actor engine_spawn(self_ptr self, operation op, next_action act,
                        op_start mode);

namespace {

caf::error not_found(const std::string& id) {
  return make_error(errc::not_found, "no operation with id '" + id + "'");
}

/// Reads an operation (by id or by key, per `Atom`) on a reader and hands
/// what was found to `fn`; a store error answers `rp` instead.
template <class Atom, class F>
void read_then(self_ptr self, const std::string& key, caf::response_promise rp, F fn) {
  self->request(self->state.core->reader(), caf::infinite, Atom::value, key)
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
void replay(self_ptr self, pending_create pc) {
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
    rp.deliver(start_result{self->state.core->present(*found), false});
  });
}

void on_create_ack(self_ptr self, const commit_ack& ack) {
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
  st.core->stats.operations_started.fetch_add(1, std::memory_order_relaxed);
  pc.rp.deliver(start_result{st.core->present(*pc.op), true});
  engine_spawn(self, *pc.op, pc.act, op_start::execute);
}

caf::result<start_result> on_start(self_ptr self, start_request& req) {
  auto& st = self->state;
  if (st.stopping)
    return make_error(errc::shutting_down, "the engine is shutting down");
  auto wf = st.core->workflows.find(req.workflow, req.version);
  if (!wf) {
    std::string what = "unknown workflow '" + req.workflow + "'";
    if (req.version)
      what += " version " + std::to_string(*req.version);
    return make_error(errc::unknown_workflow, what);
  }
  auto now = st.core->clk->now();
  auto op = new_operation(req, *wf, new_operation_id(now, st.node, ++st.counter), now);
  std::vector<event> events;
  event created;
  created.time = now;
  created.operation_id = op.id;
  created.type = event_type::operation_created;
  created.state = "pending";
  events.emplace_back(std::move(created));
  // The first step starts in the same write as the create: one commit less
  // per operation, and a crash right after it simply re-runs step one.
  auto act = progress::begin_next(op, *wf, now, events);
  auto snap = std::make_shared<const operation>(std::move(op));
  auto rp = self->make_response_promise<start_result>();
  auto tag = ++st.next_tag;
  st.creates.emplace(tag, pending_create{rp, snap, act});
  if (!st.core->writer->submit(checkpoint{checkpoint::kind::create, snap, std::move(events)},
                               caf::actor_cast<caf::actor>(self), tag)) {
    st.creates.erase(tag);
    return make_error(errc::shutting_down, "the engine is shutting down");
  }
  return rp;
}

/// Answers `get` for an operation without an actor from the store.
void get_from_store(self_ptr self, caf::response_promise rp, const std::string& id) {
  rp.delegate(self->state.core->reader(), get_atom::value, id);
}

/// Passes a request on to the operation's actor. The actor quits right after
/// its terminal write, so a request can reach it just too late: then
/// `fallback` answers (from the store) instead of an error.
template <class Atom, class Fallback>
void ask_actor(self_ptr self, const caf::actor& a, caf::response_promise rp,
               const std::string& id, Fallback fallback) {
  self->request(a, caf::infinite, Atom::value, id)
    .then([=](operation& op) mutable { rp.deliver(std::move(op)); },
          [=](caf::error& err) mutable {
            if (err == caf::sec::request_receiver_down)
              fallback();
            else
              rp.deliver(std::move(err));
          });
}

/// Cancel or retry an operation that has no actor: wake it if it sleeps,
/// or load it and decide.
template <class Atom>
void command_absent(self_ptr self, caf::response_promise rp, const std::string& id) {
  auto& st = self->state;
  if (st.sleepers.contains(id)) {
    engine_wake(self, id);
    engine_route(self, id,
                 [=](const caf::actor& a) mutable {
                   ask_actor<Atom>(self, a, rp, id, [=]() mutable {
                     command_absent<Atom>(self, rp, id);
                   });
                 },
                 [=]() mutable { get_from_store(self, rp, id); });
    return;
  }
  read_then<load_atom>(self, id, rp, [=](std::optional<operation>& found) mutable {
    if (!found) {
      rp.deliver(not_found(id));
      return;
    }
    auto& op = *found;
    bool retry = std::is_same<Atom, retry_atom>::value;
    if (retry && op.state == op_state::failed) {
      auto a = engine_spawn(self, std::move(op), {}, op_start::idle);
      rp.delegate(a, Atom::value, id);
      return;
    }
    if (self->state.core->lease && !is_terminal(op.state)) {
      // Live, not here: another process sharing the store drives it.
      rp.deliver(make_error(errc::invalid_state,
                            "operation '" + id + "' is "
                              + std::string{to_string(op.state)}
                              + " in another process sharing the store: "
                                "send the request to that process"));
      return;
    }
    rp.deliver(make_error(
      errc::invalid_state,
      "operation '" + id + "' is " + std::string{to_string(op.state)}
        + (retry ? ": only failed operations can be retried"
                 : ": only pending, in_progress or waiting operations can "
                   "be canceled")));
  });
}

template <class Atom>
caf::result<operation> on_command(self_ptr self, const std::string& id) {
  auto rp = self->make_response_promise();
  engine_route(self, id,
               [=](const caf::actor& a) mutable {
                 ask_actor<Atom>(self, a, rp, id, [=]() mutable {
                   command_absent<Atom>(self, rp, id);
                 });
               },
               [=]() mutable { command_absent<Atom>(self, rp, id); });
  return rp;
}

} // namespace

caf::message_handler engine_requests(self_ptr self) {
  return {
    [=](start_atom, start_request& req) { return on_start(self, req); },
    [=](commit_ack& ack) { on_create_ack(self, ack); },
    [=](get_atom, const std::string& id) -> caf::result<operation> {
      auto rp = self->make_response_promise();
      engine_route(self, id,
                   [=](const caf::actor& a) mutable {
                     ask_actor<get_atom>(self, a, rp, id,
                                         [=]() mutable { get_from_store(self, rp, id); });
                   },
                   [=]() mutable { get_from_store(self, rp, id); });
      return rp;
    },
    [=](cancel_atom, const std::string& id) { return on_command<cancel_atom>(self, id); },
    [=](retry_atom, const std::string& id) { return on_command<retry_atom>(self, id); },
    [=](list_atom, list_filter& f) {
      auto max = self->state.core->cfg.max_page;
      if (f.limit == 0 || f.limit > max)
        f.limit = max;
      return self->delegate(self->state.core->reader(), list_atom::value, std::move(f));
    },
    [=](events_atom, int64_t after, uint64_t limit) {
      return self->delegate(self->state.core->reader(), events_atom::value, after, limit);
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
