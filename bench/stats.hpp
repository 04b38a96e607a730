#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

namespace stepwise::bench {

/// Returns the q-quantile (0..1) of `xs` by nearest rank; 0 when empty.
inline double quantile(std::vector<double> xs, double q) {
  if (xs.empty())
    return 0;
  std::sort(xs.begin(), xs.end());
  auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(xs.size())));
  return xs[std::min(xs.size() - 1, rank > 0 ? rank - 1 : 0)];
}

/// The wall clock in microseconds since the epoch.
inline int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

/// Runs `run_once(run, all_done)` for runs 1 to `runs`, stopping at the
/// first that could not run (it printed why). Returns the exit code: 1
/// then, 3 when an operation did not end as it should, else 0.
template <class F>
int run_each(int runs, F run_once) {
  bool all_done = true;
  for (int run = 1; run <= runs; ++run)
    if (!run_once(run, all_done))
      return 1;
  return all_done ? 0 : 3;
}

} // namespace stepwise::bench
