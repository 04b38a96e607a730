#pragma once

#include <cstdint>

#include "engine/operation.hpp"

namespace stepwise::sim {

/// Returns a hash of what a checkpoint decides about `op` and a client
/// sees: state, revision, steps, signals, whether it has an error. Not
/// its input or data (masked in answers), nor the columns admission
/// rounds write.
inline uint64_t fingerprint(const operation& op) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t x) { h = (h ^ x) * 1099511628211ull; };
  mix(static_cast<uint64_t>(op.state));
  mix(static_cast<uint64_t>(op.revision));
  for (auto& s : op.steps) {
    // As callers are shown it: the step an operation waits on is waiting.
    bool waited_on = op.state == op_state::waiting && s.state == step_state::running;
    mix(static_cast<uint64_t>(waited_on ? step_state::waiting : s.state));
    mix(static_cast<uint64_t>(s.attempts));
    mix(static_cast<uint64_t>(s.compensation));
  }
  mix(op.signals.size());
  mix(op.error.empty() ? 0 : 1);
  mix(op.pause_requested ? 1 : 0);
  return h;
}

} // namespace stepwise::sim
