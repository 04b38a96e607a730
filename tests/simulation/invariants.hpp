#pragma once

#include "tests/simulation/sim_log.hpp"
#include "tests/simulation/sim_world.hpp"

namespace stepwise::sim {

/// Checks every live operation actor of `world`: it has a committed state,
/// and a commit in flight has its snapshot. Run after every message.
void check_actors(sim_log& log, sim_world& world);

/// Checks, when `world` is quiet (nothing to deliver, run or write), that
/// no paused or queued operation holds an actor, but one whose deadline
/// is near (it keeps its actor to fail in time).
void check_parked(sim_log& log, sim_world& world, duration wake_lead);

} // namespace stepwise::sim
