#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace stepwise::sim {

/// What one run of the simulation saw: the invariants it broke, how many
/// checks it made, and (when asked for) the trace of what it did.
struct sim_log {
  std::vector<std::string> violations;
  uint64_t checks = 0;
  /// Mixes every choice the run made: equal for runs that took the same
  /// path, so distinct values count distinct interleavings.
  uint64_t path = 1469598103934665603ull;
  /// Keep the last `trace_keep` lines of the trace (0: none, cheaper).
  size_t trace_keep = 0;
  std::deque<std::string> trace;

  /// Counts a check; records `what` when `ok` is false.
  void check(bool ok, const std::string& what) {
    ++checks;
    if (!ok)
      violations.push_back(what);
  }

  /// Counts a check whose message is built only when it fails.
  template <class F>
  void check_lazy(bool ok, F&& what) {
    ++checks;
    if (!ok)
      violations.push_back(what());
  }

  /// Folds a choice into `path`.
  void choose(uint64_t x) {
    path = (path ^ (x + 0x9e3779b97f4a7c15ull)) * 1099511628211ull;
  }

  bool tracing() const {
    return trace_keep > 0;
  }

  /// Put before each line of the trace: the process acting (several
  /// share the store), or nothing.
  std::string who;

  void note(std::string line) {
    if (!tracing())
      return;
    trace.push_back(who + std::move(line));
    if (trace.size() > trace_keep)
      trace.pop_front();
  }

  bool failed() const {
    return !violations.empty();
  }
};

} // namespace stepwise::sim
