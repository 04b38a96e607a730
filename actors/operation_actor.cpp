// The operation actor: one per live operation, the only writer of it. Its
// life, and the messages each part of it takes (the behavior, `lifecycle`
// below, lists them all in one place):
//
//   creating   spawned by the dispatcher for a start: makes the operation
//              (its first transition), writes the create checkpoint and
//              tells the dispatcher how it went (created_atom), which
//              answers the asker; a taken idempotency key is read back and
//              the actor quits (operation_create.cpp). Takes: commit_ack.
//              What else comes waits for the create (when_idle).
//   running    carries out each action the pure transitions
//              (engine/progress) decide: runs a step (step_runner.cpp),
//              applies its result (operation_results.cpp), one checkpoint
//              at a time (persist, on_ack). Takes: step_done, commit_ack,
//              the step timeout, client requests (get, command, signal:
//              operation_requests.cpp), children started or read
//              (operation_children.cpp).
//   waiting    a retry, a sleep, a signal, a watched task or children: a
//              timer on the engine's clock, or a watcher's report
//              (operation_waits.cpp, operation_timers.cpp). Takes: its
//              timers, watch_ready and the report, a nudge, admitted.
//   passivated a long wait gives the actor up: it hands the operation to
//              the dispatcher (one request: passivated_atom), passes on
//              what reached it meanwhile, and quits on the answer
//              (operation_passivation.cpp). The dispatcher spawns a new
//              actor when the wait is due or a request comes
//              (drive_operation, op_start::resume).
//   ended      a terminal state is written: the actor tells the dispatcher
//              (finished_atom, with the last snapshot) and quits; a retry
//              of an ended operation spawns one again (op_start::idle).
//
// Parts it delegates: the commit writer (checkpoints), the step workers and
// step actors (attempts), the watcher (waits on tasks), the children keeper
// (counting its children's ends), the dispatcher (routing, wake-ups).
#include "actors/operation_actor.hpp"

#include <algorithm>

#include "actors/operation_parts.hpp"

#include <caf/send.hpp>

#include "actors/messages.hpp"
#include "actors/step_runner.hpp"
#include "engine/actor_step.hpp"
#include "engine/commands.hpp"
#include "engine/errc.hpp"
#include "engine/redact.hpp"

namespace stepwise::op {

namespace {

void arm_deadline(self_ptr self) {
  auto& st = self->state;
  if (!st.op.deadline || st.deadline_armed || is_terminal(st.op.state))
    return;
  st.deadline_armed = true;
  arm(self, *st.op.deadline, deadline_atom::value);
}

} // namespace

namespace {

/// Tells the step actor of the attempt in hand, if its step has one, that
/// the attempt is not waited for any more.
void tell_step_actor(self_ptr self) {
  auto& st = self->state;
  auto idx = st.op.state == op_state::compensating ? progress::compensation_cursor(st.op, *st.wf)
                                                   : st.op.cursor();
  if (idx < st.wf->steps().size() && st.wf->steps()[idx].actor)
    self->send(st.wf->steps()[idx].actor, step_stop_atom::value, st.op.id, st.work.attempt());
}

} // namespace

void stop_attempt(self_ptr self, const char* why) {
  self->state.work.request_stop(why);
  tell_step_actor(self);
}

bool parked(const operation& op) {
  return op.state == op_state::waiting || op.state == op_state::paused
         || (op.state == op_state::pending && op.admission == admission::queued);
}

void abandon(self_ptr self, const char* why) {
  if (self->state.work.abandon(why))
    tell_step_actor(self);
}

void execute(self_ptr self, next_action act) {
  auto& st = self->state;
  auto now = st.rt->clk->now();
  switch (act.what) {
    case next_action::kind::none:
      return;
    case next_action::kind::run_step: {
      // Draining: the operation stays as last written and the next start
      // runs this attempt, as after a crash.
      if (st.rt->draining.load(std::memory_order_relaxed))
        return;
      if (st.rt->lease && st.rt->lease->epoch() != st.lease_epoch) {
        // Begun under a lease that was lost: the dispatcher has dropped
        // this actor, and its operation may run elsewhere (or in a newer
        // actor here) by now. Its stop is on its way; it begins nothing.
        return;
      }
      if (st.rt->lease && !st.rt->lease->holds()) {
        // No renewal succeeded for a lease period (the database is out of
        // reach): another process may own the operation by now, and a
        // step it completed must not run here again. Wait until the lease
        // is renewed, or found lost (then this actor is stopped).
        st.awaiting_lease = act;
        arm(self, now + std::chrono::milliseconds(100), lease_wait_atom::value,
            st.work.begin_wait());
        return;
      }
      if (prepare_transient(self, act))
        return;
      // An attempt a timer began ahead of time starts when it is due.
      auto start = std::max(now, st.start_at);
      st.start_at = time_point{};
      auto& def = st.wf->steps()[act.step];
      // An inline body runs here and now: it gets the data itself, not a
      // copy, and no timer can interrupt it. Begun ahead of its due time,
      // it runs on a worker then, as any blocking body: on time, rather
      // than when the actor next gets a thread.
      bool here =
        def.runs_inline && start <= now && (act.compensate ? bool{def.compensate} : bool{def.run});
      auto token = st.work.begin_attempt(act.attempt, &st.rt->stats.attempts_running);
      auto gen = st.work.generation();
      st.rt->stats.steps_started.fetch_add(1, std::memory_order_relaxed);
      if (def.timeout && !act.compensate && !here)
        arm(self, start + *def.timeout, step_timeout_atom::value, gen);
      auto input = opened_input(st);
      auto data = here ? std::move(st.op.data) : boost::json::object(st.op.data);
      auto ctx = context_for(st, def.name, act.attempt, input ? *input : st.op.input,
                             std::move(data), std::move(st.transient), token);
      st.transient = {};
      bool timed = act.due.time_since_epoch().count() > 0;
      attempt_target to{self,
                        gen,
                        st.rt->step_pool,
                        timed ? std::min(act.due, start) : start,
                        timed,
                        start > now ? st.rt->clk.get() : nullptr,
                        st.rt->lease,
                        st.lease_epoch,
                        st.rt->clk};
      auto res = input ? run_step(to, st.wf, act.step, std::move(ctx), act.compensate)
                       : failed_attempt(std::move(ctx), message_of(input.error()));
      if (res) {
        step_done msg{gen, act.attempt, std::make_shared<step_result>(std::move(*res))};
        on_step_done(self, msg);
      }
      return;
    }
    case next_action::kind::wait: {
      auto gen = st.work.begin_wait();
      // Only plain waits passivate: a compensation's retry stays armed here.
      // Long wait: hand the wake-up time to the dispatcher and stop.
      if (!act.compensate && act.due - now >= st.rt->cfg.passivate_after && may_drop_transient(st)
          && passivate(self, act.due))
        return;
      arm(self, act.due - start_lead(st), timer_atom::value, gen);
      return;
    }
    case next_action::kind::await:
      await(self, act);
      return;
    case next_action::kind::park:
      // Paused: only a request (or the deadline) brings it back. Queued
      // (again, after a retry): an admission round does, asked for now.
      if (st.op.admission == admission::queued)
        st.rt->writer->request_admission();
      st.work.begin_wait();
      // Near its deadline it keeps its actor: the deadline timer is armed.
      passivate(self, time_point::max());
      return;
    case next_action::kind::finish: {
      auto& m = st.rt->stats;
      if (st.op.state == op_state::succeeded)
        m.operations_succeeded.fetch_add(1, std::memory_order_relaxed);
      else if (st.op.state == op_state::failed)
        m.operations_failed.fetch_add(1, std::memory_order_relaxed);
      else if (st.op.state == op_state::canceled)
        m.operations_canceled.fetch_add(1, std::memory_order_relaxed);
      self->send(st.dispatcher, finished_atom::value, st.op.id, st.commit.durable);
      self->quit();
      return;
    }
  }
}

namespace {

void on_ack(self_ptr self, const commit_ack& ack) {
  auto& st = self->state;
  auto status = ack.status;
  if (st.creating) {
    if (!created(self, ack))
      return;
    arm_deadline(self);
  }
  if (status != write_status::ok) {
    // Fenced: another writer (another process, on a shared store) owns the
    // operation now, or retention removed it (ended) since it was read.
    // Nothing is written or reported from here; the owner, if any, carries
    // on from the store's copy.
    auto fenced = make_error(errc::stale_revision,
                             "operation '" + st.op.id
                               + "' was changed by another process (shared store) or removed "
                                 "by retention; the request was not carried out");
    for (auto& w : st.commit.waiters)
      std::visit([&](auto& rp) { rp.deliver(fenced); }, w);
    st.commit.waiters.clear();
    self->send(st.dispatcher, finished_atom::value, st.op.id, op_snapshot{});
    self->quit();
    return;
  }
  auto act = st.commit.end();
  auto waiting = std::move(st.commit.waiters);
  st.commit.waiters.clear();
  for (auto& w : waiting) {
    auto shown = st.rt->present(*st.commit.durable);
    if (auto* rp = std::get_if<caf::typed_response_promise<signal_result>>(&w))
      rp->deliver(signal_result{std::move(shown), false});
    else
      std::get<caf::typed_response_promise<operation>>(w).deliver(std::move(shown));
  }
  // What the commit decided runs first: a timer or a result that waited
  // for the commit belongs to the state before it, and is stale (an old
  // generation) once the action arms or starts something new. Ending the
  // operation waits for the requests, which the ended operation answers
  // (or a retry among them supersedes the end).
  bool finishing = act.what == next_action::kind::finish;
  bool stored_only = act.what == next_action::kind::none;
  if (!finishing) {
    execute(self, act);
    act = {};
  }
  auto deferred = std::move(st.commit.deferred);
  st.commit.deferred.clear();
  for (size_t i = 0; i <= deferred.size(); ++i) {
    if (st.commit.busy()) {
      // A new commit began: the rest waits for it, and so does the end,
      // unless what that commit does next supersedes it.
      if (st.commit.then.what == next_action::kind::none)
        st.commit.then = act;
      for (size_t j = i; j < deferred.size(); ++j)
        st.commit.deferred.emplace_back(std::move(deferred[j]));
      return;
    }
    if (i < deferred.size())
      deferred[i]();
  }
  // A paused or queued operation that stored something (a signal) gives up
  // its actor again: its passivation may have been refused while the
  // commit was in flight.
  bool idle_parked = st.op.state == op_state::paused
                     || (st.op.state == op_state::pending && st.op.admission == admission::queued);
  if (stored_only && idle_parked && !st.work.attempt_running())
    act.what = next_action::kind::park;
  execute(self, act);
}

void start(self_ptr self, next_action act, op_start mode) {
  auto& st = self->state;
  switch (mode) {
    case op_start::execute:
      st.commit.durable = std::make_shared<const operation>(st.op);
      arm_deadline(self);
      execute(self, act);
      return;
    case op_start::resume:
    case op_start::recover: {
      st.commit.durable = std::make_shared<const operation>(st.op);
      if (mode == op_start::resume && progress::watching(st.op, *st.wf)) {
        // The watcher still follows this wait: no need to tell it again.
        st.watched.step = st.op.cursor();
        st.watched.attempt = st.op.steps[st.watched.step].attempts;
      }
      std::vector<event> events;
      auto next = progress::recover(st.op, *st.wf, st.rt->clk->now(), events);
      arm_deadline(self);
      if (events.empty())
        execute(self, next);
      else
        persist(self, std::move(events), next);
      return;
    }
    case op_start::idle:
      st.commit.durable = std::make_shared<const operation>(st.op);
      return;
  }
}

} // namespace

} // namespace stepwise::op

namespace stepwise {

using namespace op;

operation_state::~operation_state() {
  if (!rt)
    return;
  rt->stats.operations_live.fetch_sub(1, std::memory_order_relaxed);
  rt->stats.timers_pending.fetch_sub(timers_out, std::memory_order_relaxed);
}

namespace op {

void take_up(self_ptr self, runtime_ptr rt, internal_dispatcher_actor dispatcher, workflow_ptr wf) {
  auto& st = self->state;
  st.rt = std::move(rt);
  st.dispatcher = std::move(dispatcher);
  st.wf = std::move(wf);
  // The dispatcher's count, not the keeper's: an actor it spawns after a
  // loss and before it handled it is dropped with the others.
  st.lease_epoch = st.rt->leases_lost_handled.load(std::memory_order_acquire);
  st.rt->stats.operations_live.fetch_add(1, std::memory_order_relaxed);
}

} // namespace op

operation_actor::behavior_type drive_operation(self_ptr self, runtime_ptr rt,
                                               internal_dispatcher_actor dispatcher, operation op,
                                               next_action act, op_start mode) {
  auto& st = self->state;
  auto wf = rt->workflows.find(op.workflow, op.workflow_version);
  take_up(self, std::move(rt), std::move(dispatcher), std::move(wf));
  st.op = std::move(op);
  if (mode != op_start::execute)
    reseal_data(st);
  st.rng.seed(static_cast<uint32_t>(std::hash<std::string>{}(st.op.id) ^ st.rt->cfg.seed));
  // Values are missing only if steps ran before this actor (an operation
  // that waited for its admission has run none).
  st.upkeep.rebuild_due = mode != op_start::execute
                          && std::any_of(st.op.steps.begin(), st.op.steps.end(),
                                         [](const step_record& r) { return r.attempts > 0; });
  start(self, act, mode);
  return lifecycle(self);
}

operation_actor::behavior_type op::lifecycle(self_ptr self) {
  return {
    // Client requests, through the dispatcher.
    [=](get_atom) { return on_get(self); },
    [=](command_atom, const command_request& req) { return on_command(self, req); },
    [=](signal_atom, signal_request& req) { return on_signal(self, req); },
    [=](command_atom, const command_request& req, int64_t seq) {
      return on_command(self, req, seq);
    },
    [=](signal_atom, signal_request& req, int64_t seq) { return on_signal(self, req, seq); },
    [=](settle_atom) { on_settle(self); },
    // The commit writer.
    [=](commit_ack& ack) { on_ack(self, ack); },
    // While a commit is in flight (a signal or a pause stored during the
    // attempt), the result waits for it: one commit at a time.
    [=](step_done& msg) { when_idle(self, [=]() mutable { on_step_done(self, msg); }); },
    // Waits and their watchers.
    [=](watch_ready& ready) { on_ready(self, ready); },
    [=](watch_done_atom, watch_reply& reply) { on_report(self, reply); },
    [=](linger_atom, uint64_t gen, time_point due) { on_linger(self, gen, due); },
    // Its timers.
    [=](timer_atom, uint64_t gen) { on_timer(self, gen); },
    [=](step_timeout_atom, uint64_t gen) { on_step_timeout(self, gen); },
    [=](lease_wait_atom, uint64_t gen) { on_lease_wait(self, gen); },
    [=](deadline_atom) { on_deadline(self); },
    // The dispatcher: admission. To itself: passivation.
    [=](admitted_atom, int64_t revision) { on_admitted(self, revision); },
    [=](passivate_atom, uint64_t gen) { on_passivate(self, gen); },
    // Child operations (operation_children.cpp).
    [=](children_started& msg) { on_children_started(self, msg); },
    [=](children_read& read) { on_children_read(self, read); },
    [=](children_nudge_atom, uint64_t seq) { on_children_nudge(self, seq); },
  };
}

} // namespace stepwise
