#include "tests/simulation/sim_cluster.hpp"

namespace stepwise::sim {

sim_cluster::sim_cluster(sim_log& log, std::mt19937_64& rng, sim_store& store, size_t n)
  : procs(n), log_(log), rng_(rng), store_(store) {
  // nop
}

bool sim_cluster::all_up() const {
  for (auto& p : procs)
    if (!p.world)
      return false;
  return true;
}

void sim_cluster::advance(duration d) {
  for (auto& p : procs)
    if (p.world)
      p.world->advance(d);
}

std::optional<time_point> sim_cluster::next_due() {
  std::optional<time_point> out;
  for (auto& p : procs)
    if (p.world)
      if (auto due = p.world->clock().next_due(); due && (!out || *due < *out))
        out = due;
  return out;
}

void sim_cluster::post() {
  auto sent = store_.take_notices();
  if (sent.empty())
    return;
  for (auto& p : procs)
    if (p.world)
      p.inbox.insert(p.inbox.end(), sent.begin(), sent.end());
}

void sim_cluster::hear(size_t i) {
  auto& p = procs[i];
  notices got;
  got.reconnected = std::exchange(p.reconnected, false);
  if (!p.inbox.empty()) {
    auto k = rng_() % p.inbox.size();
    auto fate = rng_() % 20;
    log_.choose(k * 20 + fate);
    auto n = p.inbox[k];
    if (fate == 0) {
      // The connection drops: everything on its way is lost, and the
      // next wait says so (the router then reads at once).
      log_.note("process " + std::to_string(i) + ": the listening connection drops ("
                + std::to_string(p.inbox.size()) + " notifications lost)");
      counts.dropped_connections += 1;
      counts.lost += p.inbox.size();
      p.inbox.clear();
      p.reconnected = true;
      return;
    }
    if (fate == 1) {
      // Lost without a trace: only the lease tick's reads make up for it.
      log_.note("process " + std::to_string(i) + ": notification " + n.channel + " '" + n.payload
                + "' is lost");
      counts.lost += 1;
      p.inbox.erase(p.inbox.begin() + static_cast<std::ptrdiff_t>(k));
      return;
    }
    if (fate == 2)
      counts.duplicated += 1; // stays on its way: heard again later
    else
      p.inbox.erase(p.inbox.begin() + static_cast<std::ptrdiff_t>(k));
    log_.note("process " + std::to_string(i) + " hears " + n.channel + " '" + n.payload + "'");
    got.items.push_back(std::move(n));
  } else {
    log_.note("process " + std::to_string(i) + " listens again");
  }
  counts.delivered += got.items.size();
  p.world->hear(got, !std::exchange(p.listening, true));
}

bool sim_cluster::quiet() {
  for (size_t i = 0; i < procs.size(); ++i)
    if (!procs[i].world || !procs[i].world->quiet() || can_hear(i))
      return false;
  return true;
}

} // namespace stepwise::sim
