#include "engine/retry_policy.hpp"

#include <algorithm>
#include <cmath>

namespace stepwise {

duration retry_policy::backoff(int32_t attempt, double unit_random) const {
  auto base =
    static_cast<double>(initial_interval.count()) * std::pow(multiplier, std::max(0, attempt - 1));
  base = std::min(base, static_cast<double>(max_interval.count()));
  auto j = std::clamp(jitter, 0.0, 1.0);
  auto factor = 1.0 + j * (2.0 * std::clamp(unit_random, 0.0, 1.0) - 1.0);
  return duration{static_cast<int64_t>(std::max(0.0, base * factor))};
}

bool retry_policy::allows(int32_t attempts, time_point first_attempt, time_point next_at) const {
  if (max_attempts > 0 && attempts >= max_attempts)
    return false;
  if (max_elapsed && next_at - first_attempt > *max_elapsed)
    return false;
  return true;
}

} // namespace stepwise
