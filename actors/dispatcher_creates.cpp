// The creates of the dispatcher: a start checked, given to a new
// operation actor that writes it (at most `create_window` at once, the rest
// waiting in order as their requests), answered once the actor says it is
// written or, when its idempotency key was taken, with the operation that
// holds it.
#include <caf/send.hpp>

#include "actors/dispatcher.hpp"
#include "actors/take.hpp"
#include "engine/errc.hpp"
#include "engine/labels.hpp"
#include "engine/new_operation.hpp"

namespace stepwise {

namespace {

/// The actor of `id` is gone or is told to go: it is no longer live.
void drop(dispatcher_ptr self, const std::string& id, bool stop) {
  auto& st = self->state;
  auto i = st.live.find(id);
  if (i == st.live.end())
    return;
  if (stop)
    self->send_exit(i->second, caf::exit_reason::user_shutdown);
  st.live.erase(i);
  tidy_later(self);
}

} // namespace

void on_created(dispatcher_ptr self, uint64_t tag, create_report& rep) {
  auto& st = self->state;
  auto taken = take(st.creates, tag);
  if (!taken)
    return;
  auto& pc = *taken;
  start_waiting(self);
  using outcome = create_report::outcome;
  bool owner = from_owner(self, pc.id);
  if (rep.what == outcome::failed) {
    if (owner)
      drop(self, pc.id, false);
    pc.rp.deliver(std::move(rep.err));
    return;
  }
  if (rep.what == outcome::replayed) {
    if (owner)
      drop(self, pc.id, false);
    if (!rep.op) {
      pc.rp.takes_replay();
      return;
    }
    pc.rp.deliver(start_result{st.rt->present(*rep.op), false});
    return;
  }
  auto& op = *rep.op;
  // Written before the lease was lost: another process drives it now.
  bool lost = owner && lost_since(self, rep.epoch);
  if (lost)
    drop(self, pc.id, true);
  if (op.state == op_state::pending && op.admission == admission::queued) {
    // Queued: the answer says what the operation waits for, as an
    // admission round (the next one, if none named it yet) says. Its
    // actor passivates; the create, kept in memory, starts it when
    // admitted rather than a read.
    if (!lost && st.queued_ops.size() < dispatcher_state::max_queued_in_memory)
      st.queued_ops.emplace(op.id, rep.op);
    if (pc.seen) {
      auto shown = op;
      shown.admission = pc.seen->admission;
      shown.blocked_by = pc.seen->blocked_by;
      pc.rp.deliver(start_result{st.rt->present(shown), true});
      return;
    }
    if (!st.stopping) {
      st.queued_answers.push_back(queued_answer{std::move(pc.rp), std::move(rep.op)});
      request_admission(self);
      return;
    }
  }
  pc.rp.deliver(start_result{st.rt->present(op), true});
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
    return draining_refusal();
  auto wf = st.rt->workflows.find(req.workflow, req.version);
  if (!wf) {
    std::string what = "unknown workflow '" + req.workflow + "'";
    if (req.version)
      what += " version " + std::to_string(*req.version);
    return make_error(errc::unknown_workflow, what);
  }
  if (auto err = check_labels(req.labels))
    return err;
  auto key = wf->key_of(req.input);
  if (!key)
    return std::move(key.error());
  return start_plan{std::move(wf), std::move(*key)};
}

bool window_full(const dispatcher_state& st) {
  auto window = st.rt->cfg.create_window;
  return window != 0 && st.creates.size() >= window;
}

/// Names the operation `req` starts and gives it an actor, which creates
/// it (operation_create.cpp) and says how that went (`on_created`).
caf::error write_create(dispatcher_ptr self, start_request req, workflow_ptr wf, std::string key,
                        const create_answer& answer) {
  auto& st = self->state;
  auto now = st.rt->clk->now();
  create_order order;
  order.req = std::move(req);
  order.wf = std::move(wf);
  order.id = new_operation_id(now, st.node, ++st.counter);
  order.at = now;
  order.key = std::move(key);
  order.tag = ++st.next_tag;
  order.read_replay = !answer.is_child();
  auto id = order.id;
  st.creates.emplace(order.tag, pending_create{answer, id, std::nullopt});
  st.rt->creates_in_hand.fetch_add(1, std::memory_order_relaxed);
  st.live[id] =
    self->spawn(create_operation, st.rt, internal_dispatcher_actor{self}, std::move(order));
  return caf::none;
}

/// Checks `req` again (the engine may have begun to stop while it waited)
/// and writes it.
caf::error start_now(dispatcher_ptr self, start_request& req, const create_answer& answer) {
  auto plan = plan_start(self, req);
  if (!plan)
    return std::move(plan.error());
  return write_create(self, std::move(req), std::move(plan->wf), std::move(plan->key), answer);
}

} // namespace

caf::error begin_create(dispatcher_ptr self, start_request& req, const create_answer& answer) {
  auto& st = self->state;
  auto plan = plan_start(self, req);
  if (!plan)
    return std::move(plan.error());
  // A store that fails or falls behind: say so now rather than queue
  // what may not be written for a long while.
  auto in_hand = st.rt->creates_in_hand.load(std::memory_order_relaxed);
  if (auto err = st.rt->writer->refusal(st.waiting_starts.size() + in_hand))
    return err;
  if (!st.waiting_starts.empty() || window_full(st)) {
    st.waiting_starts.push_back(waiting_start{std::move(req), answer});
    return caf::none;
  }
  return write_create(self, std::move(req), std::move(plan->wf), std::move(plan->key), answer);
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
