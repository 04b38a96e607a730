#pragma once

#include <vector>

#include <boost/json.hpp>

#include "engine/outcome.hpp"
#include "engine/step_context.hpp"
#include "engine/time.hpp"

namespace stepwise {

/// What one attempt of a step hands back to its operation: the outcome and
/// everything the step changed.
struct step_result {
  outcome result;
  bool skipped = false;
  duration took{0};
  /// When the attempt ended, on the engine's clock: a retry's delay and a
  /// following sleep count from here, not from when the actor got to it.
  time_point finished_at;
  boost::json::object data;
  transient_map transient;
  /// Events the step asked to append (`step_context::emit`).
  std::vector<emitted_event> emitted;
  /// Secrets the step kept or opened (string forms), masked in its error.
  std::vector<std::string> revealed;
  /// Children the attempt asked for (`step_context::start_child`); only
  /// with a `done` outcome.
  std::vector<child_request> children;

  /// Returns the result of `ctx`'s attempt: takes its data, transient
  /// values and emitted events; `started` is when it began (a reading of
  /// `ctx.monotonic()`).
  static step_result of(step_context& ctx, outcome o, duration started);
};

} // namespace stepwise
