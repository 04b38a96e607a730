#pragma once

#include <map>
#include <set>
#include <string>

#include "tests/simulation/sim_log.hpp"
#include "tests/simulation/sim_store.hpp"
#include "tests/simulation/sim_world.hpp"

namespace stepwise::sim {

class sim_cluster;

/// Checks every live operation actor of `world`: it has a committed state,
/// and a commit in flight has its snapshot. Run after every message.
void check_actors(sim_log& log, sim_world& world);

/// Returns the attempts that live operation actors of `world` run now (not
/// compensations), as "OPERATION/STEP/ATTEMPT".
std::set<std::string> running_attempts(sim_world& world);

/// Checks, after anything during which a step began, that the lease of
/// the process (on a store that keeps leases) holds by the store's time:
/// no step begins once the lease may have expired.
void check_lease(sim_log& log, sim_world& world, sim_store& store);

/// Checks, when `world` is quiet (nothing to deliver, run or write), that
/// no paused or queued operation holds an actor, but one whose deadline
/// is near (it keeps its actor to fail in time).
void check_parked(sim_log& log, sim_world& world, duration wake_lead);

/// Checks that no operation has two owners at a time: of the processes
/// whose leases hold, at most one has an actor for it that is current
/// with the store (its committed revision is the stored one) while it has
/// not ended.
void check_owners(sim_log& log, sim_cluster& cluster, sim_store& store);

/// Checks, when `world` is quiet, that no timed wait outlived its time:
/// each was answered at its deadline, if the operation did not end first.
void check_waits(sim_log& log, sim_world& world);

/// Checks, whenever the world is quiet, that a parent whose children wait
/// the store's children have decided (enough ended, or one failed) does
/// not keep waiting: it is woken within a minute of the engine's time,
/// across store faults (a failed read is tried again a second later) and
/// restarts (which start the minute again).
class children_watchdog {
public:
  void check(sim_log& log, sim_world& world, sim_store& store);

  void restarted() {
    since_.clear();
  }

private:
  /// Parents whose wait is decided, and since when (quiet time).
  std::map<std::string, time_point> since_;
};

} // namespace stepwise::sim
