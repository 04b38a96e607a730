#include "actors/real_clock.hpp"

#include <pthread.h>

#include <caf/actor_cast.hpp>
#include <caf/actor_clock.hpp>
#include <caf/actor_system.hpp>
#include <caf/mailbox_element.hpp>

namespace stepwise {

time_point real_clock::now() const {
  return std::chrono::time_point_cast<duration>(std::chrono::system_clock::now());
}

duration real_clock::monotonic() const {
  return std::chrono::duration_cast<duration>(std::chrono::steady_clock::now().time_since_epoch());
}

// Untyped: one clock serves every actor (see clock::send_at).
void real_clock::schedule(time_point due, const caf::actor& target, caf::message msg) {
  // CAF's clock is steady; translate the wall-clock due time into a delay.
  auto delay = due - now();
  if (delay.count() < 0)
    delay = duration{0};
  auto& clk = sys_.clock();
  clk.schedule_message(
    clk.now() + delay, caf::actor_cast<caf::strong_actor_ptr>(target),
    caf::make_mailbox_element(nullptr, caf::make_message_id(), {}, std::move(msg)));
}

real_clock::~real_clock() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable())
    thread_.join();
}

void real_clock::call_at(time_point due, std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopping_)
      return;
    if (!thread_.joinable())
      thread_ = std::thread{[this] {
        pthread_setname_np(pthread_self(), "sw-clock");
        run_calls();
      }};
    calls_.emplace(due, std::move(fn));
  }
  cv_.notify_one();
}

void real_clock::drop_calls() {
  std::multimap<time_point, std::function<void()>> dropped;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    dropped.swap(calls_);
  }
  // `dropped` releases what the calls held here, outside the lock.
}

void real_clock::run_calls() {
  std::unique_lock<std::mutex> guard{mtx_};
  while (!stopping_) {
    if (calls_.empty()) {
      cv_.wait(guard);
      continue;
    }
    auto wait = calls_.begin()->first - now();
    if (wait.count() > 0) {
      cv_.wait_for(guard, wait);
      continue;
    }
    auto fn = std::move(calls_.begin()->second);
    calls_.erase(calls_.begin());
    guard.unlock();
    fn();
    guard.lock();
  }
}

} // namespace stepwise
