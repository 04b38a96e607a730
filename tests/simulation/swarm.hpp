#pragma once

#include <random>
#include <string>

#include "engine/config.hpp"
#include "tests/simulation/sim_store.hpp"

namespace stepwise::sim {

/// The settings a seed picks: which faults are on, and the engine's knobs
/// (swarm testing: rare combinations get their turn).
struct swarm {
  store_faults faults;
  bool restarts = false;
  /// Async calls may never end (their step's timeout ends them).
  bool hang_calls = false;
  /// The process may drain (`engine::drain`) at a random point, and is
  /// dropped once the drain is over.
  bool drain = false;
  size_t workers = 1;
  /// Admission rounds planned as SQLite plans them (sim_store::mirror_rounds).
  bool mirror = false;
  /// The store offers retention (sim_store::retains): the engine runs its
  /// retention keeper, which removes ended operations when
  /// `cfg.retention` is set, and only reads the store's size otherwise.
  bool retains = false;
  /// The store keeps leases (sim_store::leasing): the engine joins, renews
  /// by its commits and claims, and stops stepping once its lease may have
  /// expired; a process may stall past its lease while another claims.
  bool leases = false;
  /// Processes sharing the store at once (several only with leases): each
  /// acts in turn, claims, shares the work, stores commands for the others
  /// and hears their notifications late, twice or never.
  size_t processes = 1;
  engine_config cfg;

  /// The settings in words (a failing seed's report).
  std::string describe() const;
};

/// Picks the settings of a run (the seed's first draws).
swarm pick_swarm(std::mt19937_64& rng);

} // namespace stepwise::sim
