// The requests of clients (the embedding API and the HTTP gateway):
// get, cancel, retry, pause, resume, signal, wait, shutdown (creates:
// dispatcher_creates.cpp).
#include <tuple>

#include <caf/send.hpp>

#include "actors/dispatcher.hpp"
#include "actors/command_payload.hpp"
#include "engine/commands.hpp"
#include "engine/errc.hpp"

namespace stepwise {

namespace {

caf::error not_found(const std::string& id) {
  return make_error(errc::not_found, "no operation with id '" + id + "'");
}

/// Reads an operation (by id or by key, per `Atom`) on a reader and hands
/// what was found to `fn`; a store error answers `rp` instead.
template <class Atom, class Promise, class F>
void read_then(dispatcher_ptr self, const std::string& key, Promise rp, F fn) {
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

template <class T>
using promise = caf::typed_response_promise<T>;

/// Answers `get` for an operation without an actor from the store.
void get_from_store(dispatcher_ptr self, promise<operation> rp, const std::string& id) {
  rp.delegate(self->state.rt->reader(), get_atom::value, id);
}

/// Passes a request (`xs`) on to the operation's actor, which answers with
/// a `T`. The actor quits right after its terminal write, so a request can
/// reach it just too late: then `fallback` answers (from the store) instead
/// of an error.
template <class T, class... Ts>
void ask_actor(dispatcher_ptr self, const operation_actor& a, promise<T> rp,
               std::function<void()> fallback, const Ts&... xs) {
  self->request(a, caf::infinite, xs...)
    .then([=](T& x) mutable { rp.deliver(std::move(x)); },
          [=](caf::error& err) mutable {
            if (err == caf::sec::request_receiver_down)
              fallback();
            else
              rp.deliver(std::move(err));
          });
}

/// A request about an existing operation that its actor carries out (a
/// command, a signal): `msg` for the actor, answered with a `T`;
/// `from_store` answers when the operation has no actor and its stored
/// state decides (a refusal, or a repeated signal).
template <class T, class... Ts>
struct actor_request {
  std::tuple<Ts...> msg;
  /// Whether an ended operation gets an actor to carry the request (a
  /// retry); none: never.
  std::function<bool(const operation&)> revive;
  std::function<caf::expected<T>(const operation&)> from_store;
  /// On a shared store, for a live operation another process drives:
  /// whether the stored state lets the request be stored for its owner
  /// (else `from_store` answers), the request as stored, and the answer
  /// once it is (`stored`: false for a signal id stored already).
  std::function<bool(const operation&)> storable;
  stored_command as_stored;
  std::function<T(const operation&, bool stored)> when_stored;
};

template <class T, class... Ts>
using request_ptr = std::shared_ptr<const actor_request<T, Ts...>>;

template <class T, class... Ts>
void to_actor(dispatcher_ptr self, promise<T> rp, const std::string& id, request_ptr<T, Ts...> req);

/// Stores the request for the process that drives `op` and answers once
/// that process carried it out (as the operation is then: what one server
/// answers), or refused it; or, not told so within `command_wait` (its
/// owner died, say), once it is stored, with `op` as it was.
template <class T, class... Ts>
void store_for_owner(dispatcher_ptr self, promise<T> rp, const operation& op,
                     request_ptr<T, Ts...> req) {
  auto cmd = req->as_stored;
  cmd.operation_id = op.id;
  cmd.created_at = self->state.rt->clk->now();
  auto answer = [=](std::optional<command_outcome> how) mutable {
    if (!how) {
      rp.deliver(req->when_stored(op, true));
      return;
    }
    read_then<load_atom>(self, op.id, rp, [=](std::optional<operation>& now) mutable {
      const auto& fresh = now ? *now : op;
      if (*how == command_outcome::refused) {
        auto refused = req->from_store(fresh);
        if (refused)
          rp.deliver(std::move(*refused));
        else
          rp.deliver(std::move(refused.error()));
        return;
      }
      rp.deliver(req->when_stored(fresh, *how == command_outcome::applied));
    });
  };
  command_store_begins(self);
  self->request(self->state.rt->reader(), caf::infinite, put_command_atom::value, std::move(cmd))
    .then(
      [=](int64_t seq) mutable {
        if (seq == 0)
          answer(command_outcome::repeat); // a signal id stored already
        else
          await_command(self, seq, std::move(answer));
        command_store_ends(self);
      },
      [=](caf::error& err) mutable {
        command_store_ends(self);
        rp.deliver(std::move(err));
      });
}

/// A request for an operation that has no actor: wake it if it sleeps, or
/// load it and decide.
template <class T, class... Ts>
void to_absent(dispatcher_ptr self, promise<T> rp, const std::string& id,
               request_ptr<T, Ts...> req) {
  if (self->state.sleepers.contains(id)) {
    wake(self, id);
    to_actor(self, rp, id, req);
    return;
  }
  read_then<load_atom>(self, id, rp, [=](std::optional<operation>& found) mutable {
    auto& st = self->state;
    if (st.live.count(id) || st.held.count(id) || st.sleepers.contains(id)) {
      // While the store was read, another request gave the operation an
      // actor (a second retry, say): that actor carries this one too.
      to_actor(self, rp, id, req);
      return;
    }
    if (!found) {
      rp.deliver(not_found(id));
      return;
    }
    auto& op = *found;
    if (is_terminal(op.state) && req->revive && req->revive(op)) {
      // An ended operation has no actor: give it one to carry the request.
      auto a = spawn_operation(self, std::move(op), {}, op_start::idle);
      std::apply([&](const auto&... xs) { rp.delegate(a, xs...); }, req->msg);
      return;
    }
    if (self->state.rt->lease && !is_terminal(op.state) && req->storable(op)) {
      // Live, not here: another process sharing the store drives it (or
      // will, once one takes it over). Stored for that owner.
      store_for_owner(self, rp, op, req);
      return;
    }
    auto answer = req->from_store(op);
    if (answer)
      rp.deliver(std::move(*answer));
    else
      rp.deliver(std::move(answer.error()));
  });
}

template <class T, class... Ts>
void to_actor(dispatcher_ptr self, promise<T> rp, const std::string& id,
              request_ptr<T, Ts...> req) {
  auto absent = [=] { to_absent(self, rp, id, req); };
  route(
    self, id,
    [=](const operation_actor& a) {
      std::apply([&](const auto&... xs) { ask_actor<T>(self, a, rp, absent, xs...); }, req->msg);
    },
    absent);
}

} // namespace

// A report about an operation this process does not drive is dropped (its
// owner tells its own watcher again), as is one of a watch asked under a
// lease this process has lost since (the operation's new actor told its
// watcher again: engine/wait.hpp).
void on_report(dispatcher_ptr self, watch_reply& reply) {
  if (self->state.rt->lease && reply.lease_epoch && lost_since(self, *reply.lease_epoch))
    return;
  auto id = reply.operation_id;
  if (self->state.sleepers.contains(id))
    wake(self, id);
  route(
    self, id,
    [=](const operation_actor& a) mutable { self->send(a, watch_done_atom::value, reply); }, [] {});
}

namespace {

/// Answers `rp` with the operation as it is now: from its actor, else the store.
void answer_get(dispatcher_ptr self, caf::typed_response_promise<operation> rp,
                const std::string& id) {
  auto absent = [=] { get_from_store(self, rp, id); };
  // Any error of the actor's (gone after its terminal write, fenced while
  // a commit was in flight) leaves the store to answer.
  auto ask = [=](const operation_actor& a) {
    self->request(a, caf::infinite, get_atom::value)
      .then([=](operation& op) mutable { rp.deliver(std::move(op)); },
            [=](caf::error&) mutable { absent(); });
  };
  route(self, id, ask, absent);
}

} // namespace

caf::result<operation> on_get(dispatcher_ptr self, const std::string& id) {
  auto rp = self->make_response_promise<operation>();
  answer_get(self, rp, id);
  return rp;
}

caf::result<operation> on_command(dispatcher_ptr self, const std::string& id,
                                  const command_request& cmd) {
  // Stored for another process as its kind and a payload (what it carries,
  // an input patch sealed).
  auto payload = command_payload(cmd, self->state.rt->cfg.secret_keys.get(), id);
  if (!payload)
    return std::move(payload.error());
  auto rp = self->make_response_promise<operation>();
  auto req = std::make_shared<actor_request<operation, command_atom, command_request>>();
  req->msg = std::make_tuple(command_atom::value, cmd);
  auto clk = self->state.rt->clk;
  req->revive = [cmd, clk](const operation& op) {
    return !check_fields(op, cmd) && allows(op, cmd, clk->now());
  };
  req->from_store = [cmd, clk](const operation& op) -> caf::expected<operation> {
    if (auto err = check_fields(op, cmd))
      return err;
    if (allows(op, cmd, clk->now()))
      // The process that drives it refused the stored command, in the
      // state it saw then; the operation has moved on since.
      return make_error(errc::invalid_state, "operation '" + op.id + "' is " + to_string(op.state)
                                               + ": the process that drives it refused the "
                                               + to_string(cmd.kind)
                                               + " in the state it was in then; send it again");
    return refusal(op, cmd, clk->now());
  };
  req->storable = req->revive;
  req->as_stored.cmd = cmd.kind;
  req->as_stored.payload = std::move(*payload);
  req->as_stored.by = cmd.by;
  req->when_stored = [rt = self->state.rt](const operation& op, bool) { return rt->present(op); };
  to_actor<operation>(self, rp, id, request_ptr<operation, command_atom, command_request>{req});
  return rp;
}

caf::result<signal_result> on_signal(dispatcher_ptr self, const std::string& id,
                                     signal_request& sig) {
  if (!valid_signal_name(sig.name))
    return make_error(errc::invalid_argument,
                      "the signal name must be 1 to 64 characters of A-Z a-z 0-9 _ . -");
  auto rp = self->make_response_promise<signal_result>();
  auto req = std::make_shared<actor_request<signal_result, signal_atom, signal_request>>();
  req->from_store = [rt = self->state.rt,
                     sid = sig.signal_id](const operation& op) -> caf::expected<signal_result> {
    if (has_signal(op, sid))
      return signal_result{rt->present(op), true};
    return signal_refusal(op);
  };
  req->storable = [sid = sig.signal_id](const operation& op) { return !has_signal(op, sid); };
  req->as_stored.is_signal = true;
  req->as_stored.signal_name = sig.name;
  req->as_stored.signal_id = sig.signal_id;
  req->as_stored.payload = sig.payload;
  req->as_stored.by = sig.by;
  req->when_stored = [rt = self->state.rt](const operation& op, bool stored) {
    return signal_result{rt->present(op), !stored};
  };
  req->msg = std::make_tuple(signal_atom::value, std::move(sig));
  to_actor<signal_result>(self, rp, id,
                          request_ptr<signal_result, signal_atom, signal_request>{req});
  return rp;
}

caf::result<operation> on_wait(dispatcher_ptr self, const std::string& id,
                               std::optional<caf::timespan> timeout) {
  auto& st = self->state;
  auto rp = self->make_response_promise<operation>();
  if (!st.live.count(id) && !st.held.count(id) && !st.sleepers.contains(id)) {
    get_from_store(self, rp, id);
    return rp;
  }
  uint64_t tag = 0;
  time_point due;
  // A century or more is no deadline (and would overflow the time).
  if (timeout && *timeout < std::chrono::hours(24 * 365 * 100)) {
    tag = ++st.next_tag;
    due = st.rt->clk->now() + std::chrono::duration_cast<duration>(*timeout);
    st.rt->clk->send_at(due, self, wait_due_atom::value, id, tag);
  }
  st.waiters.emplace(id, dispatcher_state::waiter{rp, tag, due});
  return rp;
}

void on_wait_due(dispatcher_ptr self, const std::string& id, uint64_t tag) {
  auto& st = self->state;
  auto range = st.waiters.equal_range(id);
  for (auto i = range.first; i != range.second; ++i)
    if (i->second.tag == tag) {
      auto rp = i->second.rp;
      st.waiters.erase(i);
      answer_get(self, rp, id);
      return;
    }
  // Answered already: the operation ended first.
}

void on_shutdown(dispatcher_ptr self) {
  auto& st = self->state;
  st.stopping = true;
  // Asked, never written: refused now rather than after the writer's acks.
  start_waiting(self);
  // Written and queued: the answer says so without a round.
  for (auto& pc : st.queued_answers)
    pc.rp.deliver(start_result{st.rt->present(*pc.op), true});
  st.queued_answers.clear();
  stop_actors(self);
}

} // namespace stepwise
