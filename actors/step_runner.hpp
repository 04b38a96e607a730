#pragma once

#include <cstddef>
#include <cstdint>

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>

#include "actors/worker_pool.hpp"
#include "engine/step_context.hpp"
#include "engine/workflow.hpp"

namespace stepwise {

/// Where an attempt runs and where its result goes.
struct attempt_target {
  /// The operation actor that started the attempt; it gets the result as
  /// `step_done{generation, attempt, result}`.
  caf::event_based_actor* self = nullptr;
  uint64_t generation = 0;
  /// Blocking bodies, conditions of blocking steps and compensations run
  /// here; `due` ranks the job (when the attempt was due to start).
  worker_pool* pool = nullptr;
  time_point due;
};

/// Starts one attempt of step `idx` of `wf` (its compensation with
/// `compensate`) in the way the step's body asks: a blocking body on the
/// pool, an asynchronous body inline (it only starts its work), a step
/// actor by request. An exception never escapes: it becomes
/// `fail(what())`. Whatever the kind, the result comes back as one
/// `step_done` message.
void run_step(const attempt_target& to, workflow_ptr wf, size_t idx,
              step_context ctx, bool compensate);

/// Ends an attempt that cannot start (its secret input cannot be opened)
/// with `fail(why)`, answered as `step_done` like any attempt.
void fail_attempt(const attempt_target& to, step_context ctx, std::string why);

} // namespace stepwise
