#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace stepwise::http {

/// A fixed number of threads that run blocking work (route handlers that
/// ask the engine and wait, store reads of event streams) off the threads
/// that do network I/O. The queue is bounded: `try_post` refuses work
/// beyond it at once, so that a flood of requests is answered 503 instead
/// of piling up unbounded latency.
///
/// Thread-safe. `stop` takes no more tasks, runs those queued already, and
/// joins the threads.
class worker_pool {
public:
  using task = std::function<void()>;

  worker_pool(size_t threads, size_t max_queued);

  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// Stops if still running.
  ~worker_pool();

  /// Queues `t`. Returns false, leaving `t` untouched, when `max_queued`
  /// tasks wait already for a busy worker, or the pool stopped.
  bool try_post(task& t);

  /// Refuses new tasks, runs the queued ones and joins the threads.
  /// Idempotent.
  void stop();

  size_t max_queued() const {
    return max_queued_;
  }

private:
  void run();

  std::mutex mtx_;
  std::condition_variable cv_;
  std::deque<task> queue_;
  size_t max_queued_;
  /// Workers waiting for a task.
  size_t idle_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

} // namespace stepwise::http
