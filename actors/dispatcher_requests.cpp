// The requests of clients (the embedding API and the HTTP gateway):
// start, get, cancel, retry, list, events, wait, shutdown.
#include <tuple>

#include <caf/send.hpp>

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

/// Submits the create `pc` with `events`; returns false when the writer
/// has stopped.
bool submit_create(dispatcher_ptr self, pending_create pc, std::vector<event> events) {
  auto& st = self->state;
  auto tag = ++st.next_tag;
  checkpoint cp{checkpoint::kind::create, pc.op, std::move(events)};
  st.creates.emplace(tag, std::move(pc));
  if (!st.rt->writer->submit(std::move(cp), commit_ack_receiver{self}, tag)) {
    st.creates.erase(tag);
    return false;
  }
  return true;
}

/// What the read for a replay found (`found`) answers the create `pc`.
void replayed(dispatcher_ptr self, pending_create& pc, std::optional<operation>& found) {
  auto& rp = pc.rp;
  auto& key = pc.op->idempotency_key;
  if (!found && !pc.again) {
    // Retention removed the operation that held the key (it had ended)
    // between the write and this read: the key is free, and the create
    // is written again, once, as if it had come a moment later.
    auto& st = self->state;
    if (st.stopping || st.rt->draining.load(std::memory_order_relaxed)) {
      rp.deliver(make_error(errc::shutting_down, "the engine is shutting down"));
      return;
    }
    pc.again = true;
    auto events = std::move(pc.events);
    auto answer = pc.rp;
    if (!submit_create(self, std::move(pc), std::move(events)))
      answer.deliver(make_error(errc::shutting_down, "the engine is shutting down"));
    return;
  }
  if (!found) {
    rp.deliver(make_error(errc::store_failure, "idempotency key '" + key
                                                 + "' is taken but its operation was not found"));
    return;
  }
  if (found->request_hash != pc.op->request_hash) {
    rp.deliver(make_error(errc::idempotency_conflict,
                          "idempotency key '" + key + "' was used with a different request"));
    return;
  }
  rp.deliver(start_result{self->state.rt->present(*found), false});
}

/// A create whose idempotency key is taken: the same request gets the
/// existing operation, a different one a conflict. The read holds the
/// create's place in the window, as it may write the create again.
void replay(dispatcher_ptr self, pending_create pc) {
  if (pc.rp.takes_replay())
    return;
  auto& st = self->state;
  st.replays += 1;
  auto key = pc.op->idempotency_key;
  self->request(st.rt->reader(), caf::infinite, load_key_atom::value, key)
    .then(
      [=](maybe_op& res) mutable {
        self->state.replays -= 1;
        if (res.err)
          pc.rp.deliver(res.err);
        else
          replayed(self, pc, res.value);
        start_waiting(self);
      },
      [=](caf::error& err) mutable {
        self->state.replays -= 1;
        pc.rp.deliver(err);
        start_waiting(self);
      });
}

} // namespace

void on_create_ack(dispatcher_ptr self, const commit_ack& ack) {
  auto& st = self->state;
  auto i = st.creates.find(ack.tag);
  if (i == st.creates.end())
    return;
  auto pc = std::move(i->second);
  st.creates.erase(i);
  if (ack.status == write_status::duplicate_key) {
    // After the replay took its place in the window, if it needs one.
    replay(self, std::move(pc));
    start_waiting(self);
    return;
  }
  start_waiting(self);
  if (ack.status != write_status::ok) {
    pc.rp.deliver(make_error(errc::store_failure, "create was not written"));
    return;
  }
  st.rt->stats.operations_started.fetch_add(1, std::memory_order_relaxed);
  if (pc.act.what == next_action::kind::park) {
    // Queued: parked until an admission round lets it start. The answer
    // waits for that round, to say what the operation waits for.
    add_sleeper(self, pc.op->id, time_point::max());
    if (st.queued_ops.size() < dispatcher_state::max_queued_in_memory)
      st.queued_ops.emplace(pc.op->id, pc.op);
    st.queued_answers.emplace_back(std::move(pc));
    request_admission(self);
    return;
  }
  pc.rp.deliver(start_result{st.rt->present(*pc.op), true});
  spawn_operation(self, *pc.op, pc.act, op_start::execute);
}

namespace {

/// What a start runs: its workflow and its serialization key.
struct start_plan {
  std::shared_ptr<const workflow> wf;
  std::string key;
};

/// What `req` starts, or why it cannot start now (nothing is written).
caf::expected<start_plan> plan_start(dispatcher_ptr self, const start_request& req) {
  auto& st = self->state;
  if (st.stopping)
    return make_error(errc::shutting_down, "the engine is shutting down");
  if (st.rt->draining.load(std::memory_order_relaxed))
    return make_error(errc::shutting_down,
                      "the server is shutting down (draining): it takes no new operations; "
                      "start this one on another server, or again once it is back");
  auto wf = st.rt->workflows.find(req.workflow, req.version);
  if (!wf) {
    std::string what = "unknown workflow '" + req.workflow + "'";
    if (req.version)
      what += " version " + std::to_string(*req.version);
    return make_error(errc::unknown_workflow, what);
  }
  auto key = wf->key_of(req.input);
  if (!key)
    return std::move(key.error());
  return start_plan{std::move(wf), std::move(*key)};
}

bool window_full(const dispatcher_state& st) {
  auto window = st.rt->cfg.create_window;
  return window != 0 && st.creates.size() + st.replays >= window;
}

/// Makes the operation `req` starts and hands its create to the writer.
caf::error write_create(dispatcher_ptr self, const start_request& req, const workflow& wf,
                        std::string key, const create_answer& answer) {
  auto& st = self->state;
  auto now = st.rt->clk->now();
  auto op = new_operation(req, wf, new_operation_id(now, st.node, ++st.counter), now);
  op.key = std::move(key);
  if (auto err = seal_input(op, wf, st.rt->cfg.secret_keys.get()))
    return err;
  std::vector<event> events;
  note_fire(op, req, now, events);
  auto act = st.rt->takes_part(wf) ? progress::create_queued(op, now, events)
                                   : progress::create(op, wf, now, events);
  auto snap = std::make_shared<const operation>(std::move(op));
  pending_create pc{answer, snap, act, {}, false};
  // Only a create with a key may be written again (`replay`).
  if (!snap->idempotency_key.empty())
    pc.events = events;
  if (!submit_create(self, std::move(pc), std::move(events)))
    return make_error(errc::shutting_down, "the engine is shutting down");
  return caf::none;
}

/// Checks `req` again (the engine may have begun to stop while it waited)
/// and writes it.
caf::error start_now(dispatcher_ptr self, const start_request& req, const create_answer& answer) {
  auto plan = plan_start(self, req);
  if (!plan)
    return std::move(plan.error());
  return write_create(self, req, *plan->wf, std::move(plan->key), answer);
}

} // namespace

caf::error begin_create(dispatcher_ptr self, start_request& req, const create_answer& answer) {
  auto& st = self->state;
  auto plan = plan_start(self, req);
  if (!plan)
    return std::move(plan.error());
  // A store that fails or falls behind: say so now rather than queue
  // what may not be written for a long while.
  if (auto err = st.rt->writer->refusal(st.waiting_starts.size()))
    return err;
  if (!st.waiting_starts.empty() || window_full(st)) {
    st.waiting_starts.push_back(waiting_start{std::move(req), answer});
    return caf::none;
  }
  return write_create(self, req, *plan->wf, std::move(plan->key), answer);
}

void start_waiting(dispatcher_ptr self) {
  auto& st = self->state;
  while (!st.waiting_starts.empty() && (st.stopping || !window_full(st))) {
    auto w = std::move(st.waiting_starts.front());
    st.waiting_starts.pop_front();
    if (auto err = start_now(self, w.req, w.answer))
      w.answer.deliver(std::move(err));
  }
}

void create_answer::deliver(start_result x) {
  if (batch_)
    fill_child(*batch_, slot_, std::move(x.op.id), caf::error{});
  else if (keeper_)
    caf::anon_send(keeper_, fire_answer{schedule_id_, fire_time_, std::move(x), caf::error{}});
  else
    rp_.deliver(std::move(x));
}

void create_answer::deliver(caf::error x) {
  if (batch_)
    fill_child(*batch_, slot_, {}, std::move(x));
  else if (keeper_)
    caf::anon_send(keeper_, fire_answer{schedule_id_, fire_time_, std::nullopt, std::move(x)});
  else
    rp_.deliver(std::move(x));
}

caf::result<start_result> on_start(dispatcher_ptr self, start_request& req) {
  // Made first, so that the create carries it: an error is then answered
  // through it too (the request counts as answered once it exists).
  auto rp = self->make_response_promise<start_result>();
  if (auto err = begin_create(self, req, create_answer{rp}))
    rp.deliver(std::move(err));
  return rp;
}

void on_fire(dispatcher_ptr self, start_request& req) {
  create_answer answer{self->state.rt->schedules, req.schedule_id,
                       req.fire_time.value_or(time_point{})};
  if (auto err = begin_create(self, req, answer))
    answer.deliver(std::move(err));
}

namespace {

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
};

template <class T, class... Ts>
using request_ptr = std::shared_ptr<const actor_request<T, Ts...>>;

template <class T, class... Ts>
void to_actor(dispatcher_ptr self, promise<T> rp, const std::string& id, request_ptr<T, Ts...> req);

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
    if (self->state.rt->lease && !is_terminal(op.state)) {
      // Live, not here: another process sharing the store drives it.
      rp.deliver(make_error(errc::invalid_state, "operation '" + id + "' is "
                                                   + std::string{to_string(op.state)}
                                                   + " in another process sharing the store: "
                                                     "send the request to that process"));
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
// owner tells its own watcher again).
void on_report(dispatcher_ptr self, watch_reply& reply) {
  auto id = reply.operation_id;
  if (self->state.sleepers.contains(id))
    wake(self, id);
  route(
    self, id,
    [=](const operation_actor& a) mutable { self->send(a, watch_done_atom::value, reply); }, [] {});
}

caf::result<operation> on_get(dispatcher_ptr self, const std::string& id) {
  auto rp = self->make_response_promise<operation>();
  auto absent = [=] { get_from_store(self, rp, id); };
  route(
    self, id,
    [=](const operation_actor& a) { ask_actor<operation>(self, a, rp, absent, get_atom::value); },
    absent);
  return rp;
}

caf::result<operation> on_command(dispatcher_ptr self, const std::string& id, command cmd) {
  auto rp = self->make_response_promise<operation>();
  auto req = std::make_shared<actor_request<operation, command_atom, command>>();
  req->msg = std::make_tuple(command_atom::value, cmd);
  auto clk = self->state.rt->clk;
  req->revive = [cmd, clk](const operation& op) { return allows(op, cmd, clk->now()); };
  req->from_store = [cmd, clk](const operation& op) -> caf::expected<operation> {
    return refusal(op, cmd, clk->now());
  };
  to_actor<operation>(self, rp, id, request_ptr<operation, command_atom, command>{req});
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
  req->msg = std::make_tuple(signal_atom::value, std::move(sig));
  to_actor<signal_result>(self, rp, id,
                          request_ptr<signal_result, signal_atom, signal_request>{req});
  return rp;
}

caf::result<operation> on_wait(dispatcher_ptr self, const std::string& id) {
  auto& st = self->state;
  auto rp = self->make_response_promise<operation>();
  if (st.live.count(id) || st.held.count(id) || st.sleepers.contains(id))
    st.waiters.emplace(id, rp);
  else
    get_from_store(self, rp, id);
  return rp;
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
  for (auto& kv : st.live)
    self->send_exit(kv.second, caf::exit_reason::user_shutdown);
  st.live.clear();
}

} // namespace stepwise
