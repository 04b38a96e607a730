#include "http/worker_pool.hpp"

#include <pthread.h>

#include <string>

namespace stepwise::http {

worker_pool::worker_pool(size_t threads, size_t max_queued) : max_queued_(max_queued) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i)
    threads_.emplace_back([this, i] {
      // Named, so that a profile or `top -H` tells requests' CPU apart.
      pthread_setname_np(pthread_self(), ("sw-http-" + std::to_string(i)).substr(0, 15).c_str());
      run();
    });
}

worker_pool::~worker_pool() {
  stop();
}

bool worker_pool::try_post(task& t) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    // Tasks that idle workers are about to take do not wait.
    if (stopping_ || queue_.size() >= max_queued_ + idle_)
      return false;
    queue_.push_back(std::move(t));
  }
  cv_.notify_one();
  return true;
}

void worker_pool::stop() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopping_ && threads_.empty())
      return;
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable())
      t.join();
  threads_.clear();
}

void worker_pool::run() {
  for (;;) {
    task t;
    {
      std::unique_lock<std::mutex> guard{mtx_};
      ++idle_;
      cv_.wait(guard, [this] { return stopping_ || !queue_.empty(); });
      --idle_;
      // Stopping: what was queued still runs (requests already read get
      // their answers), nothing new is taken.
      if (queue_.empty())
        return;
      t = std::move(queue_.front());
      queue_.pop_front();
    }
    t();
  }
}

} // namespace stepwise::http
