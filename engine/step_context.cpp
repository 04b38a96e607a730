#include "engine/step_context.hpp"

#include "engine/clock.hpp"

namespace stepwise {

time_point step_context::now() const {
  return clock_->now();
}

} // namespace stepwise
