#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <caf/actor.hpp>

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
class commit_writer {
public:
  commit_writer(store_ptr st, caf::actor events_sink, metrics& m,
                size_t max_batch);

  ~commit_writer();

  commit_writer(const commit_writer&) = delete;
  commit_writer& operator=(const commit_writer&) = delete;

  /// Queues `cp`; `reply_to` receives `commit_ack{tag, status}` once it is
  /// durable. Returns false after `stop`.
  bool submit(checkpoint cp, caf::actor reply_to, uint64_t tag);

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

  store_ptr store_;
  caf::actor events_sink_;
  metrics& metrics_;
  size_t max_batch_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::vector<checkpoint> queue_;
  std::vector<item> waiting_;
  bool stopping_ = false;
  bool healthy_ = true;
  std::thread thread_;
};

} // namespace stepwise
