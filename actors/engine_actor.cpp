#include "actors/engine_actor.hpp"

#include <algorithm>
#include <iostream>

#include <malloc.h>
#include <unistd.h>

#include <caf/event_based_actor.hpp>
#include <caf/system_messages.hpp>

#include "actors/messages.hpp"
#include "actors/new_operation.hpp"
#include "actors/operation_actor.hpp"
#include "engine/errc.hpp"

namespace stepwise {

namespace {

using self_ptr = caf::stateful_actor<engine_state>*;

caf::actor spawn_op(self_ptr self, operation op, next_action act, op_start mode) {
  auto id = op.id;
  auto a = self->spawn(operation_actor, self->state.core,
                       caf::actor_cast<caf::actor>(self), std::move(op), act,
                       mode);
  self->state.live[id] = a;
  return a;
}

/// Hands every request held for `id` to `a`, in arrival order.
void release(self_ptr self, const std::string& id, const caf::actor& a) {
  auto i = self->state.held.find(id);
  if (i == self->state.held.end())
    return;
  auto pending = std::move(i->second);
  self->state.held.erase(i);
  for (auto& fn : pending)
    fn(a);
}

void arm_sleepers(self_ptr self) {
  auto& st = self->state;
  auto due = st.sleepers.earliest();
  if (!due || (st.armed && *st.armed <= *due))
    return;
  st.armed = due;
  st.wake_gen += 1;
  st.core->clk->schedule(*due, caf::actor_cast<caf::actor>(self),
                         caf::make_message(wake_atom::value, st.wake_gen));
}

void forget_sleeper(self_ptr self, const std::string& id) {
  auto& st = self->state;
  if (st.sleepers.remove(id))
    st.core->stats.operations_sleeping.fetch_sub(1, std::memory_order_relaxed);
}

void add_sleeper(self_ptr self, const std::string& id, time_point due) {
  auto& st = self->state;
  if (!st.sleepers.contains(id))
    st.core->stats.operations_sleeping.fetch_add(1, std::memory_order_relaxed);
  st.sleepers.add(id, due);
  arm_sleepers(self);
}

/// Loads a passivated (or unowned) operation and gives it an actor again;
/// requests for it are held meanwhile. The answer comes back as a
/// `maybe_op` message: many wake-ups may be in flight at once, and CAF
/// 0.17 looks pending `request(...).then` handlers up linearly.
void wake(self_ptr self, const std::string& id) {
  forget_sleeper(self, id);
  self->state.held[id]; // hold requests from now on
  self->send(self->state.core->reader(), load_atom::value, id);
}

/// Continues `wake` with what the store had.
void woken(self_ptr self, maybe_op& res) {
  auto& id = res.id;
  if (!self->state.held.count(id))
    return; // dropped meanwhile (lease lost, or taken over again)
  auto answer_held = [&] {
    auto held = std::move(self->state.held[id]);
    self->state.held.erase(id);
    for (auto& fn : held)
      fn(caf::actor{});
  };
  if (res.err) {
    // The store did not answer: keep it asleep and try again shortly.
    answer_held();
    add_sleeper(self, id, self->state.core->clk->now() + std::chrono::seconds(1));
    return;
  }
  if (!res.value || is_terminal(res.value->state)) {
    // Gone or finished meanwhile: answer what was held from the store.
    answer_held();
    return;
  }
  auto a = spawn_op(self, std::move(*res.value), {}, op_start::recover);
  release(self, id, a);
}

/// Routes a request about operation `id` to the actor that owns it, or
/// runs `absent` when no actor does. `deliver(actor)` forwards it; with a
/// null actor (the operation vanished while held) it falls back to `absent`.
template <class Forward, class Absent>
void route(self_ptr self, const std::string& id, Forward forward, Absent absent) {
  auto& st = self->state;
  if (auto i = st.held.find(id); i != st.held.end()) {
    i->second.emplace_back([=](const caf::actor& a) mutable {
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

/// Returns whether the current message comes from the actor that owns
/// `id` now. An actor stopped by a lost lease may still talk while a new
/// one already drives the same operation.
bool from_owner(self_ptr self, const std::string& id) {
  auto i = self->state.live.find(id);
  return i != self->state.live.end()
         && self->current_sender() == caf::actor_cast<caf::strong_actor_ptr>(i->second);
}

/// Answers every held request of `id` as if the operation had no actor.
void drop_held(self_ptr self, const std::string& id) {
  auto i = self->state.held.find(id);
  if (i == self->state.held.end())
    return;
  auto held = std::move(i->second);
  self->state.held.erase(i);
  for (auto& fn : held)
    fn(caf::actor{});
}

/// Forgets whatever this process had for `id` (an actor, a wake-up time,
/// held requests): it resumes from a newer copy now.
void forget(self_ptr self, const std::string& id) {
  auto& st = self->state;
  if (auto i = st.live.find(id); i != st.live.end()) {
    self->send_exit(i->second, caf::exit_reason::user_shutdown);
    st.live.erase(i);
  }
  st.passivating.erase(id);
  forget_sleeper(self, id);
  drop_held(self, id);
}

/// The lease was ended: another process owns every operation this one
/// drove. Stops them all, silently: no event, no state change is written.
void on_lease_lost(self_ptr self) {
  auto& st = self->state;
  for (auto& kv : st.live)
    self->send_exit(kv.second, caf::exit_reason::user_shutdown);
  st.live.clear();
  st.passivating.clear();
  st.core->stats.operations_sleeping.fetch_sub(
    static_cast<int64_t>(st.sleepers.size()), std::memory_order_relaxed);
  st.sleepers.clear();
  auto held = std::move(st.held);
  st.held.clear();
  for (auto& kv : held)
    for (auto& fn : kv.second)
      fn(caf::actor{});
  auto lost = make_error(errc::stale_revision,
                         "this process lost its lease on the operation; "
                         "another process drives it now");
  for (auto& kv : st.waiters)
    kv.second.deliver(lost);
  st.waiters.clear();
}

} // namespace

// Defined in engine_requests.cpp: the handlers of the public requests.
caf::message_handler engine_requests(self_ptr self);

void engine_route(self_ptr self, const std::string& id,
                  std::function<void(const caf::actor&)> forward,
                  std::function<void()> absent) {
  route(self, id, std::move(forward), std::move(absent));
}

void engine_wake(self_ptr self, const std::string& id) {
  wake(self, id);
}

caf::actor engine_spawn(self_ptr self, operation op, next_action act,
                        op_start mode) {
  return spawn_op(self, std::move(op), act, mode);
}

caf::behavior engine_actor(self_ptr self, core_ptr core) {
  self->state.core = std::move(core);
  self->state.node = static_cast<uint32_t>(
    std::hash<std::string>{}(std::to_string(self->state.core->clk->now().time_since_epoch().count()))
    ^ static_cast<uint32_t>(::getpid()));
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& subs = self->state.subscribers;
    subs.erase(std::remove_if(subs.begin(), subs.end(),
                              [&](const caf::actor& a) { return a.address() == dm.source; }),
               subs.end());
  });
  self->delayed_send(self, std::chrono::seconds(1), tidy_atom::value);
  auto internal = caf::message_handler{
    [=](tidy_atom) {
      // After a burst (many operations finished or passivated), hand the
      // freed heap back to the system: sleeping operations should cost
      // what they hold, not what the burst once needed. malloc_trim may
      // take milliseconds, so it runs on a worker.
      auto& st = self->state;
      auto live = static_cast<int64_t>(st.live.size());
      if (st.live_at_trim - live >= 5000) {
        st.core->step_pool->submit([] { malloc_trim(0); });
        st.live_at_trim = live;
      } else if (live > st.live_at_trim) {
        st.live_at_trim = live;
      }
      if (!st.stopping)
        self->delayed_send(self, std::chrono::seconds(1), tidy_atom::value);
    },
    [=](recover_atom, recovered_ops& found) {
      auto& st = self->state;
      if (st.stopping)
        return; // not resumed here: the lease is left, others claim them
      auto now = st.core->clk->now();
      for (auto& op : found.ops) {
        forget(self, op.id);
        if (!st.core->workflows.find(op.workflow, op.workflow_version)) {
          std::cerr << "stepwise: operation " << op.id << " uses workflow '"
                    << op.workflow << "' v" << op.workflow_version
                    << " which is not registered; it stays as it is\n";
          continue;
        }
        auto due = op.wake_at;
        if (op.state == op_state::waiting && due
            && *due - now >= st.core->cfg.passivate_after) {
          if (op.deadline && *op.deadline < *due)
            due = op.deadline;
          add_sleeper(self, op.id, *due);
          continue;
        }
        spawn_op(self, std::move(op), {}, op_start::recover);
      }
      st.core->recovered = true;
    },
    [=](passivate_atom, const std::string& id, time_point due, uint64_t gen) {
      auto& st = self->state;
      auto i = st.live.find(id);
      if (i == st.live.end() || st.stopping || !from_owner(self, id))
        return;
      st.held[id]; // hold requests until the actor says yes or no
      self->send(i->second, passivate_ok_atom::value, gen);
      st.passivating[id] = due;
    },
    [=](passivated_atom, const std::string& id) {
      auto& st = self->state;
      if (!from_owner(self, id))
        return;
      st.live.erase(id);
      auto due = st.passivating[id];
      st.passivating.erase(id);
      if (!st.held[id].empty()) {
        wake(self, id); // requests arrived meanwhile: back it comes
        return;
      }
      st.held.erase(id);
      add_sleeper(self, id, due);
    },
    [=](stay_atom, const std::string& id) {
      auto& st = self->state;
      if (!from_owner(self, id))
        return;
      st.passivating.erase(id);
      if (auto i = st.live.find(id); i != st.live.end())
        release(self, id, i->second);
    },
    [=](wake_atom, uint64_t gen) {
      auto& st = self->state;
      if (gen != st.wake_gen)
        return;
      st.armed.reset();
      auto due = st.sleepers.pop_due(st.core->clk->now());
      st.core->stats.operations_sleeping.fetch_sub(static_cast<int64_t>(due.size()),
                                                   std::memory_order_relaxed);
      for (auto& id : due)
        wake(self, id);
      arm_sleepers(self);
    },
    [=](finished_atom, const std::string& id, op_snapshot& snap) {
      auto& st = self->state;
      if (!from_owner(self, id))
        return;
      st.live.erase(id);
      auto range = st.waiters.equal_range(id);
      for (auto i = range.first; i != range.second; ++i) {
        if (snap)
          i->second.deliver(st.core->present(*snap));
        else
          i->second.delegate(st.core->reader(), get_atom::value, id);
      }
      st.waiters.erase(range.first, range.second);
      if (!st.held.count(id))
        return;
      // Requests held for a finished operation are answered from the store.
      auto held = std::move(st.held[id]);
      st.held.erase(id);
      for (auto& fn : held)
        fn(caf::actor{});
    },
    [=](maybe_op& res) { woken(self, res); },
    [=](lease_lost_atom) { on_lease_lost(self); },
    [=](event_batch& batch) {
      // Copy for all but the last subscriber, which gets the batch itself.
      auto& subs = self->state.subscribers;
      for (size_t i = 0; i + 1 < subs.size(); ++i)
        self->send(subs[i], batch);
      if (!subs.empty())
        self->send(subs.back(), std::move(batch));
    },
    [=](subscribe_atom, caf::actor& listener) {
      self->monitor(listener);
      self->state.subscribers.emplace_back(std::move(listener));
    },
  };
  return caf::behavior{internal.or_else(engine_requests(self))};
}

} // namespace stepwise
