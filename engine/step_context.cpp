#include "engine/step_context.hpp"

#include "engine/clock.hpp"
#include "engine/step_result.hpp"

namespace stepwise {

time_point step_context::now() const {
  return clock_->now();
}

step_result step_result::of(step_context& ctx, outcome o,
                             std::chrono::steady_clock::time_point started) {
  step_result r;
  r.result = std::move(o);
  r.took = std::chrono::duration_cast<duration>(std::chrono::steady_clock::now() - started);
  r.finished_at = ctx.now();
  r.data = ctx.take_data();
  r.transient = ctx.take_transient();
  r.emitted = ctx.take_emitted();
  return r;
}

} // namespace stepwise
