#pragma once

#include <cstdint>
#include <string>

#include "engine/time.hpp"

namespace stepwise {

/// What one run of a step returns: exactly one of `done`, `retry_after` or
/// `fail`. A closed type: retry versus terminal is always explicit.
struct outcome {
  enum class kind : uint8_t {
    /// The step completed: checkpoint and go on.
    done,
    /// Run this same step again after `delay` (bounded by its retry policy).
    retry,
    /// The step failed permanently.
    fail,
  };

  kind what = kind::done;
  /// With `retry`: the requested delay (zero means: take the policy's).
  duration delay{0};
  /// With `retry`: the reason; with `fail`: the error.
  std::string message;
};

/// Returns the outcome "the step completed".
inline outcome done() {
  return {};
}

/// Returns the outcome "run this step again after `delay`".
inline outcome retry_after(duration delay, std::string reason) {
  return {outcome::kind::retry, delay, std::move(reason)};
}

/// Returns the outcome "the step failed permanently with `error`".
inline outcome fail(std::string error) {
  return {outcome::kind::fail, duration{0}, std::move(error)};
}

} // namespace stepwise
