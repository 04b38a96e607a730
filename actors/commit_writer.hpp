#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <caf/actor.hpp>

#include "actors/lease_keeper.hpp"
#include "engine/admission.hpp"
#include "engine/clock.hpp"
#include "engine/metrics.hpp"
#include "engine/store.hpp"

namespace stepwise {

/// Group commit: the one writer of the store. Checkpoints from many
/// operations that arrive while a commit is in flight are written together
/// in the next transaction; each sender gets a `commit_ack` only when its
/// write is durable. A failed commit is retried with backoff, never
/// acknowledged as done and never dropped: the senders just wait.
///
/// Committed events go to `events_sink` (the engine actor) as one
/// `event_batch` per transaction, in log order.
///
/// With a `lease_keeper` (a store shared by several processes) the thread
/// also keeps the lease: it claims orphaned operations every claim period,
/// idle or busy, and hands them to the engine as `recovered_ops`. A commit
/// refused because the lease was lost is not retried: every queued
/// checkpoint is answered `stale_revision`, the engine is told
/// (`lease_lost_atom`) and the process joins again under a new owner id.
/// After the last commit on `stop`, the lease is left.
class commit_writer {
public:
  commit_writer(store_ptr st, caf::actor events_sink, metrics& m,
                size_t max_batch, std::shared_ptr<lease_keeper> keeper = nullptr);

  ~commit_writer();

  commit_writer(const commit_writer&) = delete;
  commit_writer& operator=(const commit_writer&) = delete;

  /// Queues `cp`; `reply_to` receives `commit_ack{tag, status}` once it is
  /// durable. Returns false after `stop`.
  bool submit(checkpoint cp, caf::actor reply_to, uint64_t tag);

  /// Lets `request_admission` run rounds with `limits`, timed by `clk`.
  /// Called once, before the first request.
  void enable_admission(admission_limits limits, std::shared_ptr<clock> clk);

  /// Asks for an admission round after the commits queued now (several
  /// requests before it runs make one round). Its outcome goes to the
  /// events sink as an `admission_round` (and its events as an
  /// `event_batch`). A failed round is tried again with backoff.
  void request_admission();

  /// Writes what is queued, then stops the thread. Idempotent.
  void stop();

  /// Returns whether the last commit succeeded.
  bool healthy() const;

private:
  struct item {
    caf::actor reply_to;
    uint64_t tag;
  };

  void run();

  // -- lease duties (commit_writer_lease.cpp) ---------------------------------

  /// Claims orphans and hands them to the engine.
  void lease_tick();

  /// The lease was ended: answers `fenced` and everything queued as
  /// stale, tells the engine, joins again and claims.
  void lease_lost(std::vector<item>& fenced);

  /// Runs the requested admission round; returns false when it failed.
  bool admission_round();

  /// Waits `d` unless stopping; returns false when stopping.
  bool pause(std::chrono::milliseconds d);

  store_ptr store_;
  caf::actor events_sink_;
  metrics& metrics_;
  size_t max_batch_;
  std::shared_ptr<lease_keeper> keeper_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::vector<checkpoint> queue_;
  std::vector<item> waiting_;
  bool stopping_ = false;
  bool healthy_ = true;
  bool admission_wanted_ = false;
  admission_limits limits_;
  std::shared_ptr<clock> clock_;
  std::thread thread_;
};

} // namespace stepwise
