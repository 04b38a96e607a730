#include "http/worker_pool.hpp"

namespace stepwise::http {

worker_pool::worker_pool(size_t threads, size_t max_queued) : max_queued_(max_queued) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i)
    threads_.emplace_back([this] { run(); });
}

worker_pool::~worker_pool() {
  stop();
}

bool worker_pool::try_post(task& t) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopping_ || queue_.size() >= max_queued_)
      return false;
    queue_.push_back(std::move(t));
  }
  cv_.notify_one();
  return true;
}

void worker_pool::stop() {
  std::deque<task> dropped;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopping_ && threads_.empty())
      return;
    stopping_ = true;
    dropped.swap(queue_);
  }
  cv_.notify_all();
  // Destroyed outside the lock: a task may own what its destructor
  // releases elsewhere (a connection, an admission ticket).
  dropped.clear();
  for (auto& t : threads_)
    if (t.joinable())
      t.join();
  threads_.clear();
}

size_t worker_pool::queued() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return queue_.size();
}

void worker_pool::run() {
  for (;;) {
    task t;
    {
      std::unique_lock<std::mutex> guard{mtx_};
      cv_.wait(guard, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_)
        return;
      t = std::move(queue_.front());
      queue_.pop_front();
    }
    t();
  }
}

} // namespace stepwise::http
