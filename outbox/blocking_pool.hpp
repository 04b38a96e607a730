#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace stepwise::outbox {

/// A bounded pool of threads for the outbox's blocking work (store reads,
/// cursor writes, rebuilding a Kafka producer), so that none of it runs on
/// a CAF scheduler thread. Jobs run in no particular order across threads.
///
/// Thread-safe. `stop` (or destruction) waits for the queued jobs.
class blocking_pool {
public:
  explicit blocking_pool(size_t threads);

  ~blocking_pool();

  blocking_pool(const blocking_pool&) = delete;
  blocking_pool& operator=(const blocking_pool&) = delete;

  /// Queues `job`; after `stop` it is dropped.
  void post(std::function<void()> job);

  /// Runs what is queued, then ends the threads. Idempotent; must not be
  /// called from a job.
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace stepwise::outbox
