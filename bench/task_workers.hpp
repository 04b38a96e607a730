#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <boost/json/object.hpp>

#include "bench/http_driver.hpp"

namespace stepwise::bench {

/// The `tasks` workload's workers: `n` keep-alive connections that each
/// poll `queue` (`max` tasks, `wait` 1 s) and complete every task they get,
/// until the set is destroyed. All are driven by one thread (epoll), as the
/// W1 submitters are (http_submitter.hpp): a blocking client's thread per
/// connection spent a wake-up of its own per request, a quarter of the two
/// cores the server shares with it.
class task_workers {
public:
  /// `batch`: each poll's tasks are answered in one request
  /// (`POST /api/v1/tasks/complete`), else one request each. `on_task`
  /// sees each task as it arrives, on the workers' thread.
  task_workers(const http_target& t, const std::string& queue, size_t n, size_t max, bool batch,
               std::function<void(const boost::json::object&)> on_task = {});

  /// Lets each connection end its request under way, then joins.
  ~task_workers();

  task_workers(const task_workers&) = delete;
  task_workers& operator=(const task_workers&) = delete;

  std::atomic<uint64_t> completed{0};
  std::atomic<uint64_t> errors{0};

  /// What the workers share with the set (task_workers.cpp).
  struct shared;

private:
  std::unique_ptr<shared> shared_;
  std::thread thread_;
};

} // namespace stepwise::bench
