// Giving work up: a process above its share of the operations sharing
// the store (engine/share.hpp) gives some of its sleeping ones to the
// others. Only sleepers move: they have no actor and nothing in flight,
// so a move is one write, and the process below its share that claims
// one resumes it as after a takeover.
#include "actors/dispatcher.hpp"
#include "engine/log.hpp"

namespace stepwise {

namespace {

using taken_sleepers = std::vector<std::pair<std::string, time_point>>;

/// Another process drives `id` now: a wait for its end is answered with
/// the operation as stored, as for any operation this process does not
/// drive, and every held request goes the way of such requests.
void let_go(dispatcher_ptr self, const std::string& id) {
  auto& st = self->state;
  auto range = st.waiters.equal_range(id);
  for (auto i = range.first; i != range.second; ++i)
    i->second.rp.delegate(st.rt->reader(), get_atom::value, id);
  st.waiters.erase(range.first, range.second);
  release(self, id, operation_actor{});
  forget_task(self, id);
}

void on_released(dispatcher_ptr self, const taken_sleepers& taken, size_t given) {
  self->state.rt->stats.operations_released.fetch_add(given, std::memory_order_relaxed);
  // One not given up ended meanwhile, or another process took it over
  // after this one's lease was lost: not this process's either way.
  for (auto& entry : taken)
    let_go(self, entry.first);
}

void on_release_failed(dispatcher_ptr self, const taken_sleepers& taken, const caf::error& err) {
  write_log(self->state.rt->cfg.log, log_level::warn,
            "giving " + std::to_string(taken.size())
              + " operations up to other servers failed (they stay here): " + message_of(err));
  // Asleep again; a request held meanwhile wakes its operation.
  for (auto& [id, due] : taken) {
    add_sleeper(self, id, due);
    release(self, id, operation_actor{});
  }
}

} // namespace

void on_shed(dispatcher_ptr self, uint64_t n) {
  auto& st = self->state;
  if (st.stopping || st.recovering || !st.rt->lease || n == 0)
    return;
  auto taken = st.sleepers.pop_latest(n);
  if (taken.empty())
    return;
  std::vector<std::string> ids;
  ids.reserve(taken.size());
  for (auto& entry : taken) {
    st.rt->stats.operations_sleeping.fetch_sub(1, std::memory_order_relaxed);
    st.queued_ops.erase(entry.first);
    st.held[entry.first]; // requests wait until it is known whose it is
    ids.push_back(entry.first);
  }
  self->request(st.rt->reader(), caf::infinite, release_ops_atom::value, std::move(ids))
    .then([=](std::vector<std::string>& gone) { on_released(self, taken, gone.size()); },
          [=](caf::error& err) { on_release_failed(self, taken, err); });
}

} // namespace stepwise
