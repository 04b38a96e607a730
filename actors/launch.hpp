#pragma once

#include <cstdint>

#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "actors/protocols.hpp"
#include "actors/runtime.hpp"
#include "engine/config.hpp"
#include "engine/registry.hpp"
#include "engine/store.hpp"

namespace stepwise {

/// How the engine's blocking parts run.
enum class drive : uint8_t {
  /// On threads of their own: the step workers, the commit writer, the
  /// store readers (detached actors). What a process runs.
  threads,
  /// Without a thread: the workers' jobs wait in the pool and the writer's
  /// batches in its queue until the owner runs them (`worker_pool::take`,
  /// `commit_writer::write_once`); readers are ordinary actors. With CAF's
  /// test coordinator and a virtual clock, one thread then decides every
  /// interleaving: the deterministic simulation (tests/simulation).
  by_hand,
};

/// The parts `launch_runtime` made.
struct launched {
  runtime_ptr rt;
  internal_dispatcher_actor dispatcher;
};

/// Builds the runtime on `st`, spawns the dispatcher and the readers, reads
/// the first page of operations to resume (failing when the store cannot
/// be read) and hands it to the dispatcher. `node` distinguishes this
/// process in the ids it makes (0: from the clock and the process id).
caf::expected<launched> launch_runtime(caf::actor_system& sys, engine_config cfg,
                                       registry workflows, store_ptr st, drive how,
                                       uint32_t node = 0);

} // namespace stepwise
