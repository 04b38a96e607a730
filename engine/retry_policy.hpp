#pragma once

#include <cstdint>
#include <optional>

#include "engine/time.hpp"

namespace stepwise {

/// Bounds and paces the retries of one step. Pure: no clock, no randomness
/// of its own (the caller passes a uniform random number for the jitter).
struct retry_policy {
  /// Delay before the second attempt when the step names none.
  duration initial_interval = std::chrono::seconds(1);
  /// Growth of the delay per attempt.
  double multiplier = 2.0;
  /// Upper bound of the computed delay (before jitter).
  duration max_interval = std::chrono::seconds(60);
  /// Fraction of the delay, in [0, 1], that is randomized (+/-).
  double jitter = 0.0;
  /// Total attempts allowed (0: unbounded).
  int32_t max_attempts = 0;
  /// Time allowed from the step's *first attempt* (never from queue or
  /// creation time) after which no further attempt starts.
  std::optional<duration> max_elapsed;
  /// Running out of attempts (or of `max_elapsed`) pauses the operation at
  /// the step instead of failing it: a person looks, then resumes it with a
  /// fresh budget. Best-effort steps ignore it (they become incomplete).
  bool pause_when_exhausted = false;

  /// Returns the delay after failed attempt number `attempt` (1-based).
  /// `unit_random` is uniform in [0, 1).
  duration backoff(int32_t attempt, double unit_random) const;

  /// Returns whether a retry due at `next_at` is still allowed after
  /// `attempts` attempts, the first one at `first_attempt`.
  bool allows(int32_t attempts, time_point first_attempt, time_point next_at) const;
};

} // namespace stepwise
