#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace stepwise {

/// A bounded pool of threads for blocking work (user steps, store reads),
/// so that no CAF scheduler thread ever blocks. Jobs answer their callers
/// with messages; the pool knows nothing of actors.
class worker_pool {
public:
  using job = std::function<void()>;

  worker_pool(std::string name, size_t threads);

  ~worker_pool();

  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// Queues `j`. Returns false (and drops `j`) after `stop`.
  bool submit(job j);

  /// Drops the jobs not yet started, waits for the running ones, then joins
  /// the threads. Idempotent.
  void stop();

  /// Returns the number of queued jobs not yet started.
  size_t backlog() const;

private:
  void run();

  std::string name_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::deque<job> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

} // namespace stepwise
