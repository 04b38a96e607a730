#include "outbox/blocking_pool.hpp"

#include <atomic>
#include <mutex>

#include <pthread.h>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

namespace stepwise::outbox {

struct blocking_pool::impl {
  explicit impl(size_t n) : pool(n) {
    // nop
  }

  boost::asio::thread_pool pool;
  std::mutex mtx;
  bool stopped = false;
};

blocking_pool::blocking_pool(size_t threads)
  : impl_(std::make_unique<impl>(threads > 0 ? threads : 1)) {
  // nop
}

blocking_pool::~blocking_pool() {
  stop();
}

void blocking_pool::post(std::function<void()> job) {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  if (impl_->stopped)
    return;
  boost::asio::post(impl_->pool, [job = std::move(job)] {
    // asio's threads take the name of the thread that made them.
    thread_local bool named = false;
    if (!named) {
      pthread_setname_np(pthread_self(), "sw-outbox");
      named = true;
    }
    job();
  });
}

void blocking_pool::stop() {
  {
    std::lock_guard<std::mutex> guard{impl_->mtx};
    if (impl_->stopped)
      return;
    impl_->stopped = true;
  }
  impl_->pool.join();
}

} // namespace stepwise::outbox
