#include "actors/dispatcher.hpp"
#include "actors/take.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <random>
#include <unordered_set>

#include <unistd.h>

#include <caf/system_messages.hpp>

#include "actors/free_memory.hpp"
#include "actors/recovery_pager.hpp"
#include "actors/unregistered_actor.hpp"
#include "engine/errc.hpp"
#include "engine/log.hpp"

namespace stepwise {

operation_actor spawn_operation(dispatcher_ptr self, operation op, next_action act, op_start mode) {
  auto id = op.id;
  auto& rt = self->state.rt;
  auto me = internal_dispatcher_actor{self};
  // Without its definition an operation cannot go on: a stand-in fails it.
  if (rt->lease)
    op.owner = rt->lease->owner();
  auto a = rt->workflows.find(op.workflow, op.workflow_version)
             ? self->spawn(drive_operation, rt, me, std::move(op), act, mode)
             : self->spawn(unregistered_actor, rt, me, std::move(op));
  self->state.live[id] = a;
  return a;
}

void release(dispatcher_ptr self, const std::string& id, const operation_actor& a) {
  auto pending = take(self->state.held, id);
  if (!pending)
    return;
  for (auto& fn : *pending)
    fn(a);
}

void forget_task(dispatcher_ptr self, const std::string& id) {
  // Whoever drives it now offers its task again.
  if (auto& broker = self->state.rt->task_watcher)
    self->send(broker, unwatch_atom::value, id, std::numeric_limits<int32_t>::max());
}

void route(dispatcher_ptr self, const std::string& id,
           std::function<void(const operation_actor&)> forward, std::function<void()> absent) {
  auto& st = self->state;
  if (auto i = st.held.find(id); i != st.held.end()) {
    i->second.emplace_back([forward, absent](const operation_actor& a) {
      if (a)
        forward(a);
      else
        absent();
    });
    return;
  }
  if (auto i = st.live.find(id); i != st.live.end()) {
    forward(i->second);
    return;
  }
  absent();
}

bool lost_since(dispatcher_ptr self, uint64_t epoch) {
  return epoch < self->state.rt->leases_lost_handled.load(std::memory_order_acquire);
}

bool from_owner(dispatcher_ptr self, const std::string& id) {
  auto i = self->state.live.find(id);
  return i != self->state.live.end()
         && self->current_sender() == caf::actor_cast<caf::strong_actor_ptr>(i->second);
}

void stop_actors(dispatcher_ptr self) {
  auto& st = self->state;
  std::unordered_set<std::string> creating;
  for (auto& kv : st.creates)
    creating.insert(kv.second.id);
  for (auto i = st.live.begin(); i != st.live.end();) {
    if (creating.count(i->first)) {
      ++i;
      continue;
    }
    self->send_exit(i->second, caf::exit_reason::user_shutdown);
    i = st.live.erase(i);
  }
}

namespace {

/// Forgets whatever this process had for `id` (an actor, a wake-up time,
/// held requests): it resumes from a newer copy now.
void forget(dispatcher_ptr self, const std::string& id) {
  auto& st = self->state;
  if (auto i = st.live.find(id); i != st.live.end()) {
    self->send_exit(i->second, caf::exit_reason::user_shutdown);
    st.live.erase(i);
    tidy_later(self);
  }
  forget_sleeper(self, id);
  release(self, id, operation_actor{});
  forget_task(self, id);
}

void on_recover(dispatcher_ptr self, recovered_ops& found);

/// Children of a parent canceled before they were (a crash in between) are
/// canceled now: the children keeper reads the parents of those found.
void tell_parents(dispatcher_ptr self, const std::vector<operation>& found) {
  std::unordered_set<std::string> parents;
  for (auto& op : found)
    if (!op.parent_id.empty())
      parents.insert(op.parent_id);
  if (!parents.empty())
    self->send(self->state.rt->children, recover_atom::value,
               std::vector<std::string>{parents.begin(), parents.end()});
}
void leave_recovery(dispatcher_ptr self);

/// Holds every request until start-up recovery has read its last page: an
/// operation not read yet must not look absent.
void enter_recovery(dispatcher_ptr self) {
  auto& st = self->state;
  if (st.recovering)
    return;
  st.recovering = true;
  self->set_default_handler(caf::skip);
  // Only part of the protocol, on purpose: what it does not take waits.
  using recovery_behavior = internal_dispatcher_actor::behavior_type;
  self->become(caf::keep_behavior,
               recovery_behavior{recovery_behavior::unsafe_init{},
                                 caf::message_handler{
                                   [=](page_atom, recovered_ops& page) { on_recover(self, page); },
                                   [=](shutdown_atom) {
                                     // Stop reading pages; the held requests and the shutdown
                                     // itself go through the usual behavior.
                                     self->state.stopping = true;
                                     leave_recovery(self);
                                     self->send(self, shutdown_atom::value);
                                   },
                                 }});
}

void leave_recovery(dispatcher_ptr self) {
  auto& st = self->state;
  if (!st.recovering)
    return;
  st.recovering = false;
  self->set_default_handler(caf::print_and_drop);
  self->unbecome();
}

/// Resumes non-terminal operations found at start (a page of them) or
/// taken over from a process whose lease ended.
void on_recover(dispatcher_ptr self, recovered_ops& found) {
  auto& st = self->state;
  if (st.stopping)
    return; // not resumed here: the lease is left, others claim them
  tell_parents(self, found.ops);
  auto now = st.rt->clk->now();
  for (auto& op : found.ops) {
    forget(self, op.id);
    auto wf = st.rt->workflows.find(op.workflow, op.workflow_version);
    if (op.state == op_state::pending && op.admission == admission::queued) {
      add_sleeper(self, op.id, time_point::max()); // its admission wakes it
      continue;
    }
    if (wf && op.state == op_state::paused) {
      // Only a request (or its deadline) moves it on.
      add_sleeper(self, op.id, op.deadline.value_or(time_point::max()));
      continue;
    }
    auto due = op.wake_at;
    // A wait followed by a watcher gets an actor, to tell the watcher again;
    // so does an operation whose version is not registered, to fail it.
    // A children wait too: nothing would count its children's ends.
    if (wf && op.state == op_state::waiting && due && !progress::watching(op, *wf)
        && !progress::awaiting_children(op, *wf) && *due - now >= st.rt->cfg.passivate_after) {
      if (op.deadline && *op.deadline < *due)
        due = op.deadline;
      add_sleeper(self, op.id, *due);
      continue;
    }
    spawn_operation(self, std::move(op), {}, op_start::recover);
  }
  st.recovered_count += found.ops.size();
  if (found.next) {
    // The first page (from the launch) starts the pager; it sends the others.
    if (!st.recovering)
      self->spawn<caf::linked>(recovery_pager, st.rt, internal_dispatcher_actor{self}, *found.next);
    enter_recovery(self);
    return;
  }
  leave_recovery(self);
  // The loaded rows went with their pages; sleepers keep only their entries.
  st.trim_wanted = st.recovered_count >= 5000;
  if (st.trim_wanted)
    tidy_later(self);
  st.recovered_count = 0;
  st.rt->recovered = true;
  request_admission(self); // a takeover, or the end of recovery: look at once
}

/// An operation actor ended its operation (`snap` is its last state, or
/// null when another process took it over).
void on_finished(dispatcher_ptr self, const std::string& id, const op_snapshot& snap) {
  auto& st = self->state;
  if (!from_owner(self, id))
    return;
  st.live.erase(id);
  tidy_later(self);
  // The children keeper counts the ends of children and cancels those of
  // a canceled parent.
  if (snap && (!snap->parent_id.empty() || snap->state == op_state::canceled))
    self->send(st.rt->children, finished_atom::value, snap);
  if (snap && snap->admission != admission::none)
    request_admission(self); // its key and slot are free now
  if (snap && !snap->schedule_id.empty() && is_terminal(snap->state) && st.rt->schedules)
    self->send(st.rt->schedules, op_ended_atom::value, snap->schedule_id, id);
  auto range = st.waiters.equal_range(id);
  for (auto i = range.first; i != range.second; ++i) {
    if (snap)
      i->second.rp.deliver(st.rt->present(*snap));
    else
      i->second.rp.delegate(st.rt->reader(), get_atom::value, id);
  }
  st.waiters.erase(range.first, range.second);
  // Requests held for a finished operation are answered from the store.
  release(self, id, operation_actor{});
  // Fenced on a shared store: a write of an operation this process still
  // owns may be refused too (the stored command it carried out was
  // refused by another process meanwhile). Resumed from the store then,
  // else nobody would drive it; but not after a lost lease (its owner id
  // stays until the process rejoins, so the owner check alone would
  // resume an operation another process claimed since), and at once, not
  // by a message to itself, which a loss could overtake.
  if (!snap && st.rt->lease)
    self->request(st.rt->reader(), caf::infinite, load_atom::value, id)
      .then(
        [self, epoch = st.rt->leases_lost_handled.load(std::memory_order_acquire)](maybe_op& res) {
          auto& st = self->state;
          auto& op = res.value;
          if (op && !is_terminal(op->state) && op->owner == st.rt->lease->owner()
              && !lost_since(self, epoch) && st.live.count(op->id) == 0) {
            recovered_ops found{{std::move(*op)}};
            on_recover(self, found);
          }
        },
        [](caf::error&) {
          // The engine stops: recovery at the next start resumes it.
        });
}

/// Actors gone since the most at once that make a heap trim worth it.
constexpr int64_t trim_after = 5000;

/// After a burst (many operations finished or passivated), hands the freed
/// heap back to the system: sleeping operations should cost what they
/// hold, not what the burst once needed. Only once the burst is over (few
/// steps in the last second): a trim in the middle of one returns pages
/// that the next allocations fault in again. It may take milliseconds, so
/// it runs on a worker.
void tidy(dispatcher_ptr self) {
  auto& st = self->state;
  st.tidy_armed = false;
  auto live = static_cast<int64_t>(st.live.size());
  auto steps = st.rt->stats.steps_started.load(std::memory_order_relaxed);
  auto quiet = steps - st.steps_at_tidy < 1000;
  st.steps_at_tidy = steps;
  if (st.live_at_trim - live < trim_after && !st.trim_wanted)
    return; // a new burst came
  if (!quiet) {
    tidy_later(self);
    return;
  }
  st.trim_wanted = false;
  st.rt->step_pool->submit([] { release_free_memory(); });
  st.live_at_trim = live;
}

} // namespace

void tidy_later(dispatcher_ptr self) {
  auto& st = self->state;
  auto live = static_cast<int64_t>(st.live.size());
  // Called once per actor gone (before it went there was one more), and
  // by a recovery that wants a trim.
  st.live_at_trim = std::max(st.live_at_trim, live + 1);
  // Armed only when a trim is due, not ticking for ever: a timer on a
  // virtual clock is the next stop of every test and of the simulation
  // that step from timer to timer.
  if (st.tidy_armed || st.stopping || (st.live_at_trim - live < trim_after && !st.trim_wanted))
    return;
  st.tidy_armed = true;
  st.steps_at_tidy = st.rt->stats.steps_started.load(std::memory_order_relaxed);
  send_in(self, std::chrono::seconds(1), tidy_atom::value);
}

namespace {

/// The part of the ids an engine makes that tells engines apart: random for
/// the process, and another for each engine it launches. An engine launched
/// again in the same process on a virtual clock that stood still makes ids
/// from the same time and counter: with the node of the first it named its
/// new operations as the first had named others (a test found it: such a
/// create took over a stored child's id and the child was never resumed).
uint32_t fresh_node() {
  static const uint32_t base = std::random_device{}() ^ static_cast<uint32_t>(::getpid());
  static std::atomic<uint32_t> launched{0};
  return base + launched.fetch_add(1, std::memory_order_relaxed);
}

} // namespace

internal_dispatcher_actor::behavior_type dispatcher(dispatcher_ptr self, runtime_ptr rt) {
  auto& st = self->state;
  st.rt = std::move(rt);
  st.node = st.rt->node != 0 ? st.rt->node : fresh_node();
  return {
    // Clients: the public protocol (dispatcher_requests.cpp).
    [=](start_atom, start_request& req) { return on_start(self, req); },
    [=](get_atom, const std::string& id) { return on_get(self, id); },
    [=](command_atom, const std::string& id, const command_request& cmd) {
      return on_command(self, id, cmd);
    },
    [=](signal_atom, const std::string& id, signal_request& sig) {
      return on_signal(self, id, sig);
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
    [=](wait_atom, const std::string& id) { return on_wait(self, id, std::nullopt); },
    [=](wait_atom, const std::string& id, caf::timespan timeout) {
      return on_wait(self, id, timeout);
    },
    [=](wait_due_atom, const std::string& id, uint64_t tag) { on_wait_due(self, id, tag); },
    [=](subscribe_atom, event_listener& listener) {
      self->send(self->state.rt->fanout, subscribe_atom::value, std::move(listener));
    },
    [=](watch_done_atom, watch_reply& reply) { on_report(self, reply); },
    [=](shutdown_atom) { on_shutdown(self); },
    // The commit writer.
    [=](created_atom, uint64_t tag, create_report& rep) { on_created(self, tag, rep); },
    [=](admission_round& round) { on_round(self, round); },
    [=](recover_atom, recovered_ops& found) { on_recover(self, found); },
    [=](lease_lost_atom) { on_lease_lost(self); },
    [=](commands_poll_atom) { on_commands_poll(self); },
    [=](shed_atom, uint64_t n) { on_shed(self, n); },
    [=](command_done_atom, int64_t seq, uint8_t outcome) { on_command_done(self, seq, outcome); },
    [=](command_due_atom, int64_t seq) { on_command_due(self, seq); },
    [=](cluster_atom) { return on_cluster(self); },
    // A page of start-up recovery (taken in the recovery behavior; one that
    // comes after a shutdown left it is dropped).
    [=](page_atom, recovered_ops&) {},
    // Operation actors.
    [=](finished_atom, const std::string& id, op_snapshot& snap) { on_finished(self, id, snap); },
    [=](passivated_atom, const std::string& id, time_point due) { on_passivated(self, id, due); },
    [=](wake_atom, const std::string& id) { on_late(self, id); },
    // Its timers, and a reader's answer to a wake-up's load.
    [=](wake_atom, uint64_t gen) { on_wake(self, gen); },
    [=](tidy_atom) { tidy(self); },
    [=](maybe_op& res) { on_loaded(self, res); },
    // The schedule keeper.
    [=](fire_atom, start_request& req) { on_fire(self, req); },
    // Child operations: a step's children to start (dispatcher_children.cpp),
    // a parent to nudge.
    [=](start_children_atom, children_start& req) { on_start_children(self, req); },
    [=](children_nudge_atom, const std::string& parent, uint64_t seq) {
      on_children_nudge(self, parent, seq);
    },
  };
}

} // namespace stepwise
