#include "engine/stop.hpp"

#include <atomic>
#include <mutex>
#include <vector>

namespace stepwise {

namespace detail {

struct stop_state {
  std::atomic<bool> stopped{false};
  std::mutex mtx;
  std::string reason;
  std::vector<std::function<void()>> callbacks;
};

} // namespace detail

bool stop_token::stop_requested() const {
  return st_ && st_->stopped.load(std::memory_order_acquire);
}

std::string stop_token::reason() const {
  if (!st_)
    return {};
  std::lock_guard<std::mutex> guard{st_->mtx};
  return st_->reason;
}

void stop_token::on_stop(std::function<void()> fn) const {
  if (!st_)
    return;
  {
    std::lock_guard<std::mutex> guard{st_->mtx};
    if (!st_->stopped.load(std::memory_order_relaxed)) {
      st_->callbacks.emplace_back(std::move(fn));
      return;
    }
  }
  fn();
}

stop_source::stop_source() : st_(std::make_shared<detail::stop_state>()) {
  // nop
}

stop_token stop_source::token() const {
  return stop_token{st_};
}

void stop_source::request_stop(std::string reason) {
  std::vector<std::function<void()>> run;
  {
    std::lock_guard<std::mutex> guard{st_->mtx};
    if (st_->stopped.load(std::memory_order_relaxed))
      return;
    st_->reason = std::move(reason);
    st_->stopped.store(true, std::memory_order_release);
    run.swap(st_->callbacks);
  }
  for (auto& fn : run)
    fn();
}

} // namespace stepwise
