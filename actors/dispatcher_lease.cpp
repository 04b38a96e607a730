// The dispatcher when its process loses its lease on a shared store.
#include "actors/dispatcher.hpp"
#include "engine/errc.hpp"

namespace stepwise {

/// The lease was ended: another process owns every operation this one
/// drove. Stops them all, silently: no event, no state change is written.
void on_lease_lost(dispatcher_ptr self) {
  auto& st = self->state;
  st.rt->leases_lost_handled.fetch_add(1, std::memory_order_acq_rel);
  stop_actors(self);
  // Their tasks are offered again by the processes that drive them now.
  if (st.rt->tasks)
    caf::anon_send(caf::actor_cast<caf::actor>(st.rt->tasks), lease_lost_atom::value);
  st.rt->stats.operations_sleeping.fetch_sub(static_cast<int64_t>(st.sleepers.size()),
                                             std::memory_order_relaxed);
  st.sleepers.clear();
  st.queued_ops.clear();
  auto held = std::move(st.held);
  st.held.clear();
  for (auto& kv : held)
    for (auto& fn : kv.second)
      fn(operation_actor{});
  auto lost = make_error(errc::stale_revision, "this process lost its lease on the operation; "
                                               "another process drives it now");
  for (auto& kv : st.waiters)
    kv.second.rp.deliver(lost);
  st.waiters.clear();
  // Nothing of the lost lease is left here to write under the next one.
  st.rt->writer->rejoin();
}

} // namespace stepwise
