#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include <caf/typed_event_based_actor.hpp>

#include "actors/lease_keeper.hpp"
#include "actors/protocols.hpp"
#include "actors/worker_pool.hpp"
#include "engine/clock.hpp"
#include "engine/step_context.hpp"
#include "engine/workflow.hpp"

namespace stepwise {

/// Where an attempt runs and where its result goes.
struct attempt_target {
  /// The operation actor that started the attempt; it gets the result as
  /// `step_done{generation, attempt, result}`.
  operation_actor::pointer self = nullptr;
  uint64_t generation = 0;
  /// Blocking bodies, conditions of blocking steps and compensations run
  /// here; `due` ranks the job (when the attempt was due to start).
  std::shared_ptr<worker_pool> pool;
  time_point due;
  /// A timer began the attempt: its job goes before untimed ones.
  bool timed = false;
  /// Set for an attempt handed over before it is due: its blocking body
  /// reaches the pool at `due`, on this clock's thread.
  stepwise::clock* clk = nullptr;
  /// On a store that processes share: the lease, its epoch when the
  /// attempt began, and the engine's clock. A job that waited in the pool
  /// until the lease may have expired runs its body only once the lease
  /// holds again (another process may have run the step meanwhile), and
  /// never once the lease was lost (`lease_keeper::holds`, `epoch`).
  std::shared_ptr<lease_keeper> lease{};
  uint64_t lease_epoch = 0;
  std::weak_ptr<stepwise::clock> engine_clock{};
};

/// Starts one attempt of step `idx` of `wf` (its compensation with
/// `compensate`) in the way the step's body asks: a blocking body on the
/// pool, an asynchronous body inline (it only starts its work), a step
/// actor by request, an inline body (`runs_inline`) at once (unless handed
/// over ahead of its due time: then on the pool). An exception
/// never escapes: it becomes `fail(what())`. The result comes back as one
/// `step_done` message, or is returned when it is there at once (an inline
/// body, a condition that skips the step): the caller applies it.
std::optional<step_result> run_step(const attempt_target& to, workflow_ptr wf, size_t idx,
                                    step_context ctx, bool compensate);

/// Returns the result of an attempt that cannot start (its secret input
/// cannot be opened): `fail(why)`, for the caller to apply as `run_step`'s.
step_result failed_attempt(step_context ctx, std::string why);

} // namespace stepwise
