#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace stepwise::sim {

/// What became of the notifications between processes.
struct notice_counts {
  uint64_t delivered = 0;
  uint64_t duplicated = 0;
  uint64_t lost = 0;
  uint64_t dropped_connections = 0;
};

/// What one run of the simulation does.
struct sim_options {
  /// Picks everything: the faults that are on (swarm testing), the
  /// engine's settings, the client's requests, which message is delivered
  /// next, when workers finish, calls end, time moves and the process
  /// restarts.
  uint64_t seed = 1;
  /// Client requests before the run only finishes what is left.
  size_t calls = 40;
  /// Bound on the simulation's steps (one delivered message, one worker
  /// job, one commit, ...).
  size_t max_steps = 100000;
  /// Keep this many last lines of the trace (0: none).
  size_t trace = 0;
};

/// What a run found.
struct sim_report {
  uint64_t seed = 0;
  /// The invariants it broke (empty: none); the run stops at the first.
  std::vector<std::string> violations;
  std::deque<std::string> trace;
  /// Equal for two runs that took the same path.
  uint64_t path = 0;
  uint64_t checks = 0;
  uint64_t steps = 0;
  uint64_t deliveries = 0;
  uint64_t restarts = 0;
  /// Drains begun, and drained processes dropped (a drain that ended).
  uint64_t drains = 0;
  uint64_t drained = 0;
  uint64_t operations = 0;
  /// Operations a purge removed (retention).
  uint64_t removed = 0;
  /// Commands stored for the process that drives their operation, and
  /// those carried out (leases).
  uint64_t commands_stored = 0;
  uint64_t commands_carried = 0;
  /// Repairs written: input patches, from_step resets, skips.
  std::array<uint64_t, 3> repairs{};
  /// Processes sharing the store at once, and what became of the
  /// notifications between them.
  uint64_t processes = 1;
  notice_counts notices;
  uint64_t answers = 0;
  /// Tasks handed to the simulated workers, and their answers taken and
  /// refused as stale.
  uint64_t tasks_handed = 0;
  uint64_t task_answers = 0;
  uint64_t task_answers_refused = 0;
  uint64_t bodies = 0;
  /// The settings the seed picked, in words.
  std::string settings;
};

/// Runs one seed of the simulation; see tests/simulation/README.md.
sim_report simulate(const sim_options& opts);

} // namespace stepwise::sim
