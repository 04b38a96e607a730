// Passivation: an operation that waits long gives up its actor; only its
// wake-up time stays, in one sleeper set with a single timer. It gets an
// actor again when due or when a request addresses it.
#include "actors/dispatcher.hpp"

namespace stepwise {

namespace {

void arm_sleepers(dispatcher_ptr self) {
  auto& st = self->state;
  auto due = st.sleepers.earliest();
  // `max`: waits with no timeout, woken only by a request or a report.
  if (!due || *due == time_point::max() || (st.armed && *st.armed <= *due))
    return;
  st.armed = due;
  st.wake_gen += 1;
  st.rt->clk->send_at(*due - st.rt->cfg.wake_lead, self, wake_atom::value, st.wake_gen);
}

} // namespace

// Continues `wake` with what the store had.
void on_loaded(dispatcher_ptr self, maybe_op& res) {
  auto& id = res.id;
  if (!self->state.held.count(id))
    return; // dropped meanwhile (lease lost, or taken over again)
  if (res.err) {
    // The store did not answer: keep it asleep and try again shortly.
    release(self, id, operation_actor{});
    add_sleeper(self, id, self->state.rt->clk->now() + std::chrono::seconds(1));
    return;
  }
  if (!res.value || is_terminal(res.value->state)) {
    // Gone or finished meanwhile: what was held is answered from the store.
    release(self, id, operation_actor{});
    return;
  }
  auto a = spawn_operation(self, std::move(*res.value), {}, op_start::resume);
  release(self, id, a);
}

void forget_sleeper(dispatcher_ptr self, const std::string& id) {
  auto& st = self->state;
  st.queued_ops.erase(id);
  if (st.sleepers.remove(id))
    st.rt->stats.operations_sleeping.fetch_sub(1, std::memory_order_relaxed);
}

void add_sleeper(dispatcher_ptr self, const std::string& id, time_point due) {
  auto& st = self->state;
  if (!st.sleepers.contains(id))
    st.rt->stats.operations_sleeping.fetch_add(1, std::memory_order_relaxed);
  st.sleepers.add(id, due);
  arm_sleepers(self);
}

void wake(dispatcher_ptr self, const std::string& id) {
  forget_sleeper(self, id);
  self->state.held[id]; // hold requests from now on
  // The answer comes back as a `maybe_op` message rather than through
  // `request(...).then`: many wake-ups may be in flight at once, and CAF
  // 0.17 looks pending response handlers up linearly.
  self->send(self->state.rt->reader(), load_atom::value, id);
}

void on_passivated(dispatcher_ptr self, const std::string& id, time_point due) {
  auto& st = self->state;
  // An actor dropped meanwhile (a lost lease) has nothing to hand off.
  if (!from_owner(self, id))
    return;
  st.live.erase(id);
  tidy_later(self);
  add_sleeper(self, id, due);
}

void on_children_nudge(dispatcher_ptr self, const std::string& parent, uint64_t seq) {
  if (self->state.sleepers.contains(parent)) {
    wake(self, parent); // its wait reads the children as it resumes
    return;
  }
  route(
    self, parent, [=](const operation_actor& a) { self->send(a, children_nudge_atom::value, seq); },
    [] {});
}

void on_late(dispatcher_ptr self, const std::string& id) {
  if (self->state.sleepers.contains(id))
    wake(self, id);
}

void on_wake(dispatcher_ptr self, uint64_t gen) {
  auto& st = self->state;
  if (gen != st.wake_gen)
    return;
  st.armed.reset();
  auto due = st.sleepers.pop_due(st.rt->clk->now() + st.rt->cfg.wake_lead);
  st.rt->stats.operations_sleeping.fetch_sub(static_cast<int64_t>(due.size()),
                                             std::memory_order_relaxed);
  for (auto& id : due)
    wake(self, id);
  arm_sleepers(self);
}

} // namespace stepwise
