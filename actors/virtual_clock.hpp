#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
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

  // Untyped: one clock serves every actor (see clock::send_at).
  void schedule(time_point due, const caf::actor& target, caf::message msg) override;

  /// Calls `fn` during the `advance` that reaches `due`, in due order
  /// with the timers (at once when `due` has passed).
  void call_at(time_point due, std::function<void()> fn) override;

  void drop_calls() override;

  /// Moves the time forward by `d`, delivering every timer now due.
  void advance(duration d);

  /// Returns the number of timers (and calls) not yet delivered.
  size_t pending() const;

  /// Returns the earliest due time of a pending timer, if any.
  std::optional<time_point> next_due() const;

  /// Returns how many timers (and calls) were set for later so far: a test
  /// that moved the time sees the engine react by this count growing too.
  uint64_t timers_set() const;

  /// Returns whether a timer (or call) is pending for exactly `due`.
  bool pending_at(time_point due) const;

  /// Waits (at most `real_timeout` of real time) until a timer is pending:
  /// for tests that must let an actor arm its next timer before moving
  /// the time. Returns whether one is.
  bool await_timer(std::chrono::milliseconds real_timeout) const;

  /// Drops the pending timers of the actors of `sys`, and ignores those
  /// they arm until `ended(&sys)`: a clock shared by the systems of a test
  /// (a restart) must not wake actors of a system that ends (a hidden
  /// monitor still runs until then), nor keep them.
  void forget(const caf::actor_system& sys);

  /// Says that the forgotten system `sys` is gone (a new one may live at
  /// its address).
  void ended(const caf::actor_system* sys);

private:
  /// Whether `target` (any actor: untyped) belongs to a system this clock
  /// forgot.
  bool forgotten(const caf::actor& target) const;

  mutable std::mutex mtx_;
  mutable std::condition_variable armed_;
  time_point now_;
  /// A timer, or a call (`fn`, no target).
  struct entry {
    caf::actor target; // untyped, as `schedule` takes it
    caf::message msg;
    std::function<void()> fn;

    void deliver();
  };
  std::multimap<time_point, entry> timers_;
  uint64_t timers_set_ = 0;
  std::vector<const caf::actor_system*> forgotten_;
};

} // namespace stepwise
