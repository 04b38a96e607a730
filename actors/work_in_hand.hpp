#pragma once

#include <atomic>
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
    settle();
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
  /// body watches. `running` counts it until it is abandoned or its result
  /// settled (`settle`).
  stop_token begin_attempt(int32_t attempt, std::atomic<int64_t>* running = nullptr) {
    assert(!running_);
    settle(); // a result not settled yet stops counting before the next one does
    ++gen_;
    running_ = true;
    counted_ = running;
    if (counted_ != nullptr)
      counted_->fetch_add(1, std::memory_order_relaxed);
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
    unsettled_ = true;
    return true;
  }

  /// The result taken by `end_attempt` was applied and its checkpoint
  /// handed to the writer: the attempt stops counting only now, so that a
  /// drain that sees none running finds their checkpoints queued.
  void settle() {
    if (unsettled_)
      uncount();
    unsettled_ = false;
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
    uncount();
    request_stop(why);
    return true;
  }

private:
  void uncount() {
    if (counted_ != nullptr)
      counted_->fetch_sub(1, std::memory_order_relaxed);
    counted_ = nullptr;
  }

  uint64_t gen_ = 0;
  bool running_ = false;
  /// Taken by `end_attempt`, not yet `settle`d.
  bool unsettled_ = false;
  std::atomic<int64_t>* counted_ = nullptr;
  int32_t attempt_ = 0;
  std::optional<stop_source> stop_;
};

} // namespace stepwise
