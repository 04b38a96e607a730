#include "actors/worker_pool.hpp"

#include <pthread.h>

namespace stepwise {

worker_pool::worker_pool(std::string name, size_t threads) : name_(std::move(name)) {
  if (threads == 0)
    threads = 1;
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i)
    threads_.emplace_back([this, i] {
      auto tname = name_.substr(0, 11) + "-" + std::to_string(i);
      pthread_setname_np(pthread_self(), tname.substr(0, 15).c_str());
      run();
    });
}

worker_pool::worker_pool(std::string name, by_hand_t) : name_(std::move(name)) {
  // nop
}

worker_pool::~worker_pool() {
  stop();
}

bool worker_pool::submit(job j, int64_t rank, bool timed) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopping_)
      return false;
    jobs_.push(entry{timed, rank, next_seq_++, std::move(j)});
  }
  cv_.notify_one();
  return true;
}

void worker_pool::stop() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
    jobs_ = {};
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable())
      t.join();
}

size_t worker_pool::backlog() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return jobs_.size();
}

std::optional<worker_pool::job> worker_pool::take() {
  std::lock_guard<std::mutex> guard{mtx_};
  if (jobs_.empty())
    return std::nullopt;
  // priority_queue::top is const: move out through a cast, then pop.
  auto j = std::move(const_cast<entry&>(jobs_.top()).fn);
  jobs_.pop();
  return j;
}

void worker_pool::run() {
  for (;;) {
    job j;
    {
      std::unique_lock<std::mutex> guard{mtx_};
      cv_.wait(guard, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty())
        return;
      // priority_queue::top is const: move out through a cast, then pop.
      j = std::move(const_cast<entry&>(jobs_.top()).fn);
      jobs_.pop();
    }
    j();
  }
}

} // namespace stepwise
