#include "actors/virtual_clock.hpp"

#include <algorithm>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/send.hpp>

namespace stepwise {

void virtual_clock::entry::deliver() {
  if (fn) {
    fn();
    return;
  }
  target->enqueue(caf::make_mailbox_element(nullptr, caf::make_message_id(), {}, std::move(msg)),
                  nullptr);
}

time_point virtual_clock::now() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return now_;
}

// Untyped: one clock serves every actor (see clock::send_at).
void virtual_clock::schedule(time_point due, const caf::actor& target, caf::message msg) {
  entry e{target, std::move(msg), {}};
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (forgotten(target))
      return;
    if (due > now_) {
      timers_.emplace(due, std::move(e));
      timers_set_ += 1;
      armed_.notify_all();
      return;
    }
  }
  e.deliver();
}

void virtual_clock::call_at(time_point due, std::function<void()> fn) {
  entry e{{}, {}, std::move(fn)};
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (due > now_) {
      timers_.emplace(due, std::move(e));
      timers_set_ += 1;
      armed_.notify_all();
      return;
    }
  }
  e.deliver();
}

uint64_t virtual_clock::timers_set() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return timers_set_;
}

bool virtual_clock::await_timer(std::chrono::milliseconds real_timeout) const {
  std::unique_lock<std::mutex> guard{mtx_};
  return armed_.wait_for(guard, real_timeout, [this] { return !timers_.empty(); });
}

void virtual_clock::advance(duration d) {
  std::vector<entry> due;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    now_ += d;
    auto end = timers_.upper_bound(now_);
    for (auto i = timers_.begin(); i != end; ++i)
      due.emplace_back(std::move(i->second));
    timers_.erase(timers_.begin(), end);
  }
  for (auto& e : due)
    e.deliver();
}

void virtual_clock::drop_calls() {
  std::vector<entry> dropped;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    for (auto i = timers_.begin(); i != timers_.end();) {
      if (i->second.fn) {
        dropped.emplace_back(std::move(i->second));
        i = timers_.erase(i);
      } else {
        ++i;
      }
    }
  }
  // `dropped` releases what the calls held here, outside the lock.
}

void virtual_clock::forget(const caf::actor_system& sys) {
  std::vector<entry> dropped;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    forgotten_.push_back(&sys);
    for (auto i = timers_.begin(); i != timers_.end();) {
      if (forgotten(i->second.target)) {
        dropped.emplace_back(std::move(i->second));
        i = timers_.erase(i);
      } else {
        ++i;
      }
    }
  }
  // `dropped` releases its actors here, outside the lock.
}

void virtual_clock::ended(const caf::actor_system* sys) {
  std::lock_guard<std::mutex> guard{mtx_};
  forgotten_.erase(std::remove(forgotten_.begin(), forgotten_.end(), sys), forgotten_.end());
}

bool virtual_clock::forgotten(const caf::actor& target) const { // untyped: any actor
  if (!target)
    return false;
  auto* home = &target->home_system();
  return std::find(forgotten_.begin(), forgotten_.end(), home) != forgotten_.end();
}

size_t virtual_clock::pending() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return timers_.size();
}

bool virtual_clock::pending_at(time_point due) const {
  std::lock_guard<std::mutex> guard{mtx_};
  return timers_.count(due) > 0;
}

std::optional<time_point> virtual_clock::next_due() const {
  std::lock_guard<std::mutex> guard{mtx_};
  if (timers_.empty())
    return std::nullopt;
  return timers_.begin()->first;
}

} // namespace stepwise
