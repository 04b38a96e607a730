// The creates of the dispatcher: a start checked, written (at most
// `create_window` at once, the rest waiting in order as their requests),
// answered once written or, when its idempotency key was taken, with the
// operation that holds it.
#include <caf/send.hpp>

#include "actors/dispatcher.hpp"
#include "engine/errc.hpp"
#include "engine/new_operation.hpp"

namespace stepwise {

namespace {

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

} // namespace stepwise
