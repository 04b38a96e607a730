#include "tests/simulation/swarm.hpp"

#include <chrono>

namespace stepwise::sim {

using namespace std::chrono_literals;

std::string swarm::describe() const {
  auto ms = [](duration d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
  };
  return "faults(commit " + std::to_string(faults.commit_fail) + ", unsure "
         + std::to_string(faults.commit_unsure) + ", read " + std::to_string(faults.read_fail)
         + ", admit " + std::to_string(faults.admit_fail) + ") restarts "
         + (restarts ? "on" : "off") + " hang_calls " + (hang_calls ? "on" : "off") + " workers "
         + std::to_string(workers) + " passivate_after " + ms(cfg.passivate_after)
         + " dispatch_lead " + ms(cfg.dispatch_lead) + " max_batch " + std::to_string(cfg.max_batch)
         + " recovery_page " + std::to_string(cfg.recovery_page) + " readers "
         + std::to_string(cfg.read_workers) + " drain " + (drain ? "on" : "off") + " admission "
         + (mirror ? "mirror" : "full read") + " retention "
         + (retains ? ms(cfg.retention) + " ms, batch " + std::to_string(cfg.retention_batch)
                        + ", every " + ms(cfg.retention_every) + " ms, purge faults "
                        + std::to_string(faults.purge_fail)
                    : std::string{"off"})
         + " create_window " + std::to_string(cfg.create_window) + " leases "
         + (leases
              ? "ttl " + ms(cfg.lease_ttl) + " ms, claim faults "
                  + std::to_string(faults.renew_fail) + ", processes " + std::to_string(processes)
              : std::string{"off"});
}

swarm pick_swarm(std::mt19937_64& rng) {
  swarm s;
  auto one_in = [&rng](uint64_t n) { return rng() % n == 0; };
  if (one_in(3))
    s.faults.commit_fail = 0.2;
  if (one_in(3))
    s.faults.commit_unsure = 0.1;
  if (one_in(3))
    s.faults.read_fail = 0.1;
  if (one_in(3))
    s.faults.admit_fail = 0.2;
  s.restarts = one_in(2);
  s.hang_calls = one_in(2);
  s.workers = 1 + rng() % 4;
  static const duration passivate[] = {0ms, 200ms, 1s, 5s};
  s.cfg.passivate_after = passivate[rng() % 4];
  s.cfg.dispatch_lead = one_in(2) ? 0ms : 50ms;
  static const size_t batches[] = {1, 3, 8192};
  s.cfg.max_batch = batches[rng() % 3];
  s.cfg.recovery_page = one_in(2) ? 2 : 10000;
  s.cfg.read_workers = 1 + rng() % 3;
  s.cfg.max_backlog = 0;
  s.cfg.log = [](log_level, std::string_view) {};
  s.drain = one_in(3);
  s.mirror = one_in(2);
  // Drawn last: the settings above stay those each seed had before.
  s.retains = !one_in(3);
  if (s.retains) {
    // Short enough that operations that ended early in a run are removed
    // while others still run, and clients still ask about them.
    static const duration keep[] = {0s, 0s, 1s, 3s, 10s, 30s, 60s};
    s.cfg.retention = keep[rng() % 7];
    s.cfg.retention_batch = 1 + rng() % 5;
    static const duration every[] = {0ms, 300ms, 2s};
    s.cfg.retention_every = every[rng() % 3];
    if (one_in(3))
      s.faults.purge_fail = 0.3;
  }
  // Drawn after retention: a window of one or two creates makes starts
  // wait behind the ones being written on half of the seeds.
  s.cfg.create_window = one_in(2) ? 1 + rng() % 2 : 4096;
  // Drawn last, as above.
  s.leases = one_in(3);
  if (s.leases) {
    static const duration ttl[] = {150ms, 600ms, 3s};
    s.cfg.lease_ttl = ttl[rng() % 3];
    s.cfg.claim_batch = one_in(2) ? 2 : 1000;
    if (one_in(3))
      s.faults.renew_fail = 0.3;
    // Drawn last, as above: on half of the seeds that keep leases, two or
    // three processes share the store.
    if (one_in(2))
      s.processes = 2 + rng() % 2;
  }
  return s;
}

} // namespace stepwise::sim
