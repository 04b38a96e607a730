#include "outbox/blocking_pool.hpp"

#include <atomic>
#include <mutex>

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
  if (!impl_->stopped)
    boost::asio::post(impl_->pool, std::move(job));
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
