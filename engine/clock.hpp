#pragma once

#include <functional>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/check_typed_input.hpp>
#include <caf/detail/implicit_conversions.hpp>
#include <caf/make_message.hpp>
#include <caf/message.hpp>
#include <caf/response_type.hpp>

#include "engine/time.hpp"

namespace stepwise {

/// The one source of time for the engine: everything that reads the time or
/// sets a timer goes through it, so that tests can use a virtual clock and
/// run timers instantly and deterministically.
///
/// Thread-safe: actors on any scheduler thread call it concurrently.
class clock {
public:
  virtual ~clock() = default;

  /// Returns the current wall-clock time.
  virtual time_point now() const = 0;

  /// Returns a reading that never goes back, from an arbitrary origin: what
  /// leases, deadlines and durations are measured with (the wall clock
  /// may be set back). A clock that never goes back may use its `now`.
  virtual duration monotonic() const {
    return now().time_since_epoch();
  }

  /// Delivers `msg` to `target` at `due` (at once when `due` has passed).
  /// A scheduled message cannot be cancelled: receivers tag their timers
  /// and drop stale ones. Untyped, as one clock serves every actor: use
  /// `send_at`, which checks the message against the target's protocol.
  virtual void schedule(time_point due, const caf::actor& target, caf::message msg) = 0;

  /// Delivers the message `xs...` to `target` (a handle or an actor's
  /// `self`) at `due`: a typed target that does not take it is a compile
  /// error.
  template <class Handle, class... Ts>
  void send_at(time_point due, const Handle& target, Ts&&... xs) {
    using args = caf::detail::type_list<caf::detail::strip_and_convert_t<Ts>...>;
    static_assert(caf::response_type_unbox<caf::signatures_of_t<Handle>, args>::valid,
                  "the target does not take this message");
    schedule(due, caf::actor_cast<caf::actor>(target), caf::make_message(std::forward<Ts>(xs)...));
  }

  /// Calls `fn` at `due` (at once when `due` has passed) on a thread of
  /// the clock's, not on an actor: what must happen on time under load
  /// (handing a due step to the workers) does not wait behind the actors
  /// that the scheduler has queued. `fn` must be cheap and must not block,
  /// and must not hold what owns the clock (it may be dropped unrun).
  virtual void call_at(time_point due, std::function<void()> fn) = 0;

  /// Drops the calls not made yet (the engine stops). What a call holds (a
  /// due step's job, and through its context this clock) must not keep
  /// the clock alive. A clock without calls of its own needs no override.
  virtual void drop_calls() {
    // nop
  }
};

} // namespace stepwise
