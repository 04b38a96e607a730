#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "tests/simulation/sim_log.hpp"
#include "tests/simulation/sim_store.hpp"
#include "tests/simulation/sim_world.hpp"

namespace stepwise::sim {

/// A task a simulated worker holds: what its lease said, and where it came
/// from.
struct sim_lease {
  std::string token;
  std::string op;
  std::string step;
  int32_t attempt = 0;
  boost::json::object input;
  size_t worker = 0;
  /// The process that handed it out (its index, and which start of it).
  size_t proc = 0;
  uint32_t node = 0;
};

/// The workers of the simulation's task steps (the `sim.tasks` workflow):
/// outside every process, they poll any process's task broker (at once
/// or long), send heartbeats, answer each task as its input plans, die
/// holding tasks, and answer late or twice. On every lease they check
/// that its step has not succeeded, and that no other lease of the same
/// process for the same attempt is still good (a heartbeat with its token
/// must be refused as stale): a ready task goes to one worker at a time.
/// What the answers do is checked in the store (sim_store_tasks.cpp).
class sim_workers {
public:
  sim_workers(sim_log& log, std::mt19937_64& rng, sim_store& store);

  /// Returns how likely a worker acts on process `proc` now (0: nothing
  /// to do there). `final` is the run's last part: no new long polls.
  uint64_t weight(size_t proc, sim_world& w, bool final) const;

  /// A worker does one thing on process `proc`.
  void act(size_t proc, sim_world& w, bool final);

  /// Process `proc` stopped: its polls in flight are gone.
  void restarted(size_t proc) {
    polls_out_[proc] = 0;
  }

  uint64_t handed = 0;
  uint64_t accepted = 0;
  uint64_t refused = 0;

private:
  void poll(size_t proc, sim_world& w, bool final);
  void got(sim_world& w, const std::vector<sim_lease>& leases);
  void probe(sim_world& w, const sim_lease& older, const sim_lease& now);
  void beat(sim_world& w, size_t k);
  void answer(sim_world& w, sim_lease lease);
  void die(size_t proc);
  /// Returns the index of a random lease held on `proc` (npos: none).
  size_t pick_held(size_t proc);

  sim_log& log_;
  std::mt19937_64& rng_;
  sim_store& store_;
  std::vector<sim_lease> held_;
  /// Leases of dead workers, and answered ones, that may still be
  /// answered (late, or twice).
  std::vector<sim_lease> late_;
  /// Every lease handed out, by "operation/step/attempt@node".
  std::map<std::string, std::vector<sim_lease>> handed_;
  std::map<size_t, size_t> polls_out_;
};

} // namespace stepwise::sim
