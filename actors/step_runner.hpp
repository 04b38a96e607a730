#pragma once

#include <cstddef>
#include <cstdint>

#include <caf/actor.hpp>

#include "actors/worker_pool.hpp"
#include "engine/step_context.hpp"
#include "engine/workflow.hpp"

namespace stepwise {

/// Runs one attempt of step `idx` of `wf` on `pool` and answers `reply_to`
/// with `step_done{generation, result}`. The step's condition and body run
/// on the worker; an exception becomes `fail(what())` and never escapes.
/// `due` ranks the job in the pool: when the attempt was due to start.
/// With `compensate`, the step's compensation runs instead of its body.
void run_step(worker_pool& pool, workflow_ptr wf, size_t idx,
              step_context ctx, caf::actor reply_to, uint64_t generation,
              time_point due, bool compensate);

} // namespace stepwise
