#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <memory>
#include <vector>

#include <caf/actor.hpp>
#include <caf/exit_reason.hpp>

#include "actors/commit_writer.hpp"
#include "actors/lease_keeper.hpp"
#include "actors/notice_pump.hpp"
#include "actors/protocols.hpp"
#include "actors/worker_pool.hpp"
#include "engine/clock.hpp"
#include "engine/config.hpp"
#include "engine/metrics.hpp"
#include "engine/operation.hpp"
#include "engine/registry.hpp"
#include "engine/store.hpp"
#include "engine/task_requests.hpp"
#include "engine/wait.hpp"

namespace stepwise {

/// What the dispatcher, the operation actors and the readers share:
/// configuration, definitions, the store,
/// the clock, the blocking pools and the group-commit writer. Created by
/// `engine::launch`; lives as long as any actor holding it.
struct runtime {
  engine_config cfg;
  registry workflows;
  store_ptr store;
  std::shared_ptr<clock> clk;
  metrics stats;
  std::shared_ptr<worker_pool> step_pool;
  /// The lease on a shared store (null for a store of one process).
  std::shared_ptr<lease_keeper> lease;
  std::unique_ptr<commit_writer> writer;
  /// The store's notifications (none for a store of one process).
  /// On a store shared by processes (leases): the notifications' router,
  /// and the thread that listens for them (not when driven by hand).
  std::shared_ptr<notice_router> router;
  std::unique_ptr<notice_pump> notices;
  /// Actors that serve store reads (detached: each owns a thread).
  std::vector<reader_actor> readers;
  std::atomic<size_t> next_reader{0};
  /// The admission keeper (none when no workflow takes part).
  admission_keeper_actor admission;
  /// The children keeper: children waits, cancels of children.
  children_keeper_actor children;
  /// The event fan-out: the subscribers of committed events.
  event_fanout_actor fanout;
  /// The schedule keeper (its fires' answers, the ends of their operations).
  schedule_keeper_actor schedules;
  /// The retention keeper (none for a store without retention).
  retention_keeper_actor retention;
  /// The task broker (actors/task_broker.hpp): the watcher of task steps,
  /// and what workers poll, as both of its protocols.
  watcher_actor task_watcher;
  tasks_actor tasks;
  std::atomic<bool> recovered{false};
  /// When `launch` began (the engine clock's time).
  time_point started_at;
  /// Creates the dispatcher gave an actor that has not handed them to the
  /// writer yet: counted with its backlog (`commit_writer::refusal`).
  std::atomic<size_t> creates_in_hand{0};
  /// Lost leases the dispatcher has handled (dropped its actors for):
  /// written by the dispatcher only. An operation actor begun at count k
  /// may begin steps only while `lease->epoch()` is k.
  std::atomic<uint64_t> leases_lost_handled{0};
  /// Set by `engine::drain`: no new operation is created and no new attempt
  /// begins; running attempts finish and are written.
  std::atomic<bool> draining{false};
  /// The part of new operation ids that tells this engine apart (0: the
  /// dispatcher picks one, random and different for each launch).
  uint32_t node = 0;
  /// Concurrency limits in force (the workflows' own, overridden by
  /// `cfg.limits`). Written at launch and under `admission_mtx`.
  admission_limits limits;
  /// Which workflows take part in admission: replaced whole (under
  /// `admission_mtx`) when a workflow defined as data joins, read by any
  /// thread.
  std::shared_ptr<const std::set<std::string>> admitted_workflows =
    std::make_shared<const std::set<std::string>>();
  std::mutex admission_mtx;
  /// Per workflow, from the last admission round (shown by /metrics).
  std::mutex counts_mtx;
  std::map<std::string, admission_counts> counts;

  /// Returns whether operations of `wf` wait for admission rounds.
  bool takes_part(const workflow& wf) const {
    return admitted()->count(wf.name()) > 0;
  }

  /// Returns the workflows that take part in admission now.
  std::shared_ptr<const std::set<std::string>> admitted() const {
    return std::atomic_load(&admitted_workflows);
  }

  /// Makes `wf` take part in admission when it declares a key or a limit
  /// (a workflow defined as data while the engine runs); returns whether
  /// it joined now. The caller starts the admission keeper if none runs.
  bool admit_workflow(const workflow& wf);

  /// Returns whether this process runs the duties done once for all the
  /// processes on the store (`lease_keeper::leads`); alone on it, always.
  bool leads() const {
    return !lease || lease->leads();
  }

  /// Returns a reader, round robin.
  const reader_actor& reader() {
    return readers[next_reader.fetch_add(1, std::memory_order_relaxed) % readers.size()];
  }

  /// Returns `op` as shown to callers: secret values masked, `blocked_by`
  /// only while queued, the step it waits on `waiting`.
  operation present(const operation& op) const;

  /// Stops the pools and the writer (draining what is queued). Idempotent.
  void stop();

  /// Sends `why` to every actor of the engine but the dispatcher and the
  /// operation actors: the readers and the keepers, whose states hold
  /// this runtime (exiting breaks the cycle), and the event fan-out.
  void exit_parts(caf::exit_reason why);

  ~runtime();
};

using runtime_ptr = std::shared_ptr<runtime>;

/// Why a start is refused while the engine drains.
caf::error draining_refusal();

} // namespace stepwise
