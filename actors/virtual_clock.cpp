#include "actors/virtual_clock.hpp"

#include <vector>

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
