#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <utility>

#include <caf/actor.hpp>
#include <caf/message.hpp>

#include "engine/clock.hpp"

namespace stepwise {

/// A clock that moves only when told. Timers fire during `advance`, in due
/// order, so tests run retries, sleeps and deadlines instantly and
/// deterministically.
class virtual_clock : public clock {
public:
  explicit virtual_clock(time_point start) : now_(start) {
    // nop
  }

  time_point now() const override;

  void schedule(time_point due, const caf::actor& target,
                caf::message msg) override;

  /// Moves the time forward by `d`, delivering every timer now due.
  void advance(duration d);

  /// Returns the number of timers not yet delivered.
  size_t pending() const;

  /// Returns the earliest due time of a pending timer, if any.
  std::optional<time_point> next_due() const;

  /// Waits (at most `real_timeout` of real time) until a timer is pending:
  /// for tests that must let an actor arm its next timer before moving
  /// the time. Returns whether one is.
  bool await_timer(std::chrono::milliseconds real_timeout) const;

private:
  mutable std::mutex mtx_;
  mutable std::condition_variable armed_;
  time_point now_;
  std::multimap<time_point, std::pair<caf::actor, caf::message>> timers_;
};

} // namespace stepwise
