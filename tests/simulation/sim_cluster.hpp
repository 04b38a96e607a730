#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "engine/notices.hpp"
#include "tests/simulation/sim_log.hpp"
#include "tests/simulation/sim_store.hpp"
#include "tests/simulation/sim_tasks.hpp"
#include "tests/simulation/sim_workflows.hpp"
#include "tests/simulation/sim_world.hpp"
#include "tests/simulation/simulation.hpp"

namespace stepwise::sim {

/// One process sharing the store: its world (null between a crash and its
/// next start), its outside world (calls, watches, drain), and the
/// notifications on their way to it.
struct sim_process {
  std::unique_ptr<sim_world> world;
  std::shared_ptr<sim_world_state> outside;
  std::vector<notice> inbox;
  /// Its listener has waited once (the router's `first`).
  bool listening = false;
  /// Its listening connection dropped: what was in flight is lost, and the
  /// next wait says so.
  bool reconnected = false;
};

/// The processes of a run, on one time: every clock moves together, and
/// the store's notifications reach each process in any order, now and
/// then twice, or never (a lost one, or a dropped listening connection).
class sim_cluster {
public:
  sim_cluster(sim_log& log, std::mt19937_64& rng, sim_store& store, size_t n);

  std::vector<sim_process> procs;
  notice_counts counts;
  /// The workers of task steps (shared by the processes).
  sim_workers* workers = nullptr;
  /// Messages delivered.
  uint64_t deliveries = 0;

  size_t size() const {
    return procs.size();
  }

  /// Whether every process has a world (a launch that failed for good
  /// ends the run).
  bool all_up() const;

  /// Moves every process's clocks forward by `d`.
  void advance(duration d);

  /// The earliest timer of any process.
  std::optional<time_point> next_due();

  /// Posts the store's new notifications to every process's inbox.
  void post();

  /// Whether a notification waits for process `i`.
  bool can_hear(size_t i) const {
    return !procs[i].inbox.empty() || procs[i].reconnected;
  }

  /// One notification reaches process `i` (any of those on their way), or
  /// is lost, or its listening connection drops.
  void hear(size_t i);

  /// Whether every process is quiet and heard everything.
  bool quiet();

  /// Process `i` does one thing it can (weighted: messages most, then
  /// workers, writes, calls, time); returns false when it can do nothing
  /// but wait. `draining`: the run's requests are over (time moves only
  /// when nothing else can happen); `hang_calls`: calls may never end.
  bool act(size_t i, bool draining, bool hang_calls);

  /// Ends an asynchronous call in flight of process `i` (any of them) with
  /// its planned outcome; with `may_hang`, now and then it never ends.
  void end_call(size_t i, bool may_hang);

  /// The watcher of process `i` reports a task it follows as settled (any
  /// of them).
  void report_watch(size_t i);

  /// Moves time: to the next timer, or a little (`quiet`: at most 1 s,
  /// so that CAF's own timers, such as the admission poll, fire too).
  void tick(bool quiet);

private:
  sim_log& log_;
  std::mt19937_64& rng_;
  sim_store& store_;
};

} // namespace stepwise::sim
