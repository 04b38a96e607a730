#pragma once

#include <cassert>
#include <cstdint>
#include <optional>

#include "engine/stop.hpp"

namespace stepwise {

/// What an operation actor waits for now, and the generation that tells
/// the messages of that from late ones. Every attempt and every wait (a
/// timer, a watch, a passivation) begins a new generation; a result or a
/// timer of an older one is stale and dropped: CAF 0.17 cannot cancel a
/// delayed message, and an abandoned attempt still answers. At most one
/// attempt runs, and only in the current generation.
class work_in_hand {
public:
  work_in_hand() = default;
  work_in_hand(const work_in_hand&) = delete;
  work_in_hand& operator=(const work_in_hand&) = delete;

  /// An attempt still running when the actor stops (shutdown, a lost
  /// lease) can no longer count: it is asked to stop.
  ~work_in_hand() {
    abandon("the operation's actor stopped");
  }

  uint64_t generation() const {
    return gen_;
  }

  /// Returns whether `gen` is the current generation.
  bool current(uint64_t gen) const {
    return gen == gen_;
  }

  bool attempt_running() const {
    return running_;
  }

  /// The number of the attempt running (or run last).
  int32_t attempt() const {
    return attempt_;
  }

  /// Begins attempt `attempt` in a new generation; returns the token its
  /// body watches.
  stop_token begin_attempt(int32_t attempt) {
    assert(!running_);
    ++gen_;
    running_ = true;
    attempt_ = attempt;
    stop_ = stop_source{};
    return stop_->token();
  }

  /// Takes the result of an attempt of generation `gen`: true when it is
  /// the running one, which has ended now; false for a stale result.
  bool end_attempt(uint64_t gen) {
    if (gen != gen_ || !running_)
      return false;
    running_ = false;
    return true;
  }

  /// Begins a wait (a timer, a watch, a passivation, a pause) in a new
  /// generation; returns it.
  uint64_t begin_wait() {
    assert(!running_);
    return ++gen_;
  }

  /// Asks the running attempt to stop; its result is still awaited.
  void request_stop(const char* why) {
    if (stop_)
      stop_->request_stop(why);
  }

  /// Gives up what is in hand: a new generation, and the running attempt,
  /// if any, asked to stop and no longer awaited. Returns whether one ran.
  bool abandon(const char* why) {
    ++gen_;
    if (!running_)
      return false;
    running_ = false;
    request_stop(why);
    return true;
  }

private:
  uint64_t gen_ = 0;
  bool running_ = false;
  int32_t attempt_ = 0;
  std::optional<stop_source> stop_;
};

} // namespace stepwise
