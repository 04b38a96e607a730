#include "actors/virtual_clock.hpp"

#include <algorithm>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/send.hpp>

namespace stepwise {

namespace {

void deliver(const caf::actor& target, caf::message msg) {
  target->enqueue(caf::make_mailbox_element(nullptr, caf::make_message_id(), {},
                                            std::move(msg)),
                  nullptr);
}

} // namespace

time_point virtual_clock::now() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return now_;
}

void virtual_clock::schedule(time_point due, const caf::actor& target,
                             caf::message msg) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (forgotten(target))
      return;
    if (due > now_) {
      timers_.emplace(due, std::make_pair(target, std::move(msg)));
      armed_.notify_all();
      return;
    }
  }
  deliver(target, std::move(msg));
}

bool virtual_clock::await_timer(std::chrono::milliseconds real_timeout) const {
  std::unique_lock<std::mutex> guard{mtx_};
  return armed_.wait_for(guard, real_timeout, [this] { return !timers_.empty(); });
}

void virtual_clock::advance(duration d) {
  std::vector<std::pair<caf::actor, caf::message>> due;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    now_ += d;
    auto end = timers_.upper_bound(now_);
    for (auto i = timers_.begin(); i != end; ++i)
      due.emplace_back(std::move(i->second));
    timers_.erase(timers_.begin(), end);
  }
  for (auto& [target, msg] : due)
    deliver(target, std::move(msg));
}

void virtual_clock::forget(const caf::actor_system& sys) {
  std::vector<std::pair<caf::actor, caf::message>> dropped;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    forgotten_.push_back(&sys);
    for (auto i = timers_.begin(); i != timers_.end();) {
      if (forgotten(i->second.first)) {
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

bool virtual_clock::forgotten(const caf::actor& target) const {
  if (!target)
    return false;
  auto* home = &target->home_system();
  return std::find(forgotten_.begin(), forgotten_.end(), home) != forgotten_.end();
}

size_t virtual_clock::pending() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return timers_.size();
}

std::optional<time_point> virtual_clock::next_due() const {
  std::lock_guard<std::mutex> guard{mtx_};
  if (timers_.empty())
    return std::nullopt;
  return timers_.begin()->first;
}

} // namespace stepwise
