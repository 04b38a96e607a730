#pragma once

#include <algorithm>
#include <cmath>
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

} // namespace stepwise::bench
