#include "actors/retention_pacing.hpp"

#include <algorithm>

namespace stepwise {

duration retention_period(const engine_config& cfg) {
  using namespace std::chrono;
  if (cfg.retention_every > duration::zero())
    return cfg.retention_every;
  if (cfg.retention <= duration::zero())
    return minutes(1);
  return std::clamp<duration>(cfg.retention / 10, seconds(1), minutes(5));
}

size_t retention_batch_size(const engine_config& cfg) {
  return std::max<size_t>(1, cfg.retention_batch);
}

duration retention_pause(duration took) {
  return std::clamp<duration>(4 * took, retention_min_pause, retention_max_pause);
}

} // namespace stepwise
