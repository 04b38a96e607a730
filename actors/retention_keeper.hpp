#pragma once

#include <optional>

#include "actors/protocols.hpp"
#include "actors/runtime.hpp"
#include "engine/retention_store.hpp"

namespace stepwise {

/// The state of the retention keeper: one actor per engine that removes
/// operations ended longer ago than `engine_config::retention`, a batch
/// at a time, on a reader (store calls block).
///
/// Paced as actors/retention_pacing.hpp says. A pass resumes each batch
/// after the last operation the previous one found
/// (`purge_request::after`): what it must keep is read once per pass.
struct retention_keeper_state {
  static inline const char* name = "stepwise.retention";

  runtime_ptr rt;
  uint64_t gen = 0;
  /// Where the pass's next batch begins (none: from the oldest).
  std::optional<purge_position> resume;
  time_point batch_began;
  /// A failure was logged: the next one is not, until a batch succeeds.
  bool failing = false;
};

/// Spawned by `launch_runtime` when retention is on and the store offers
/// it (`store::retention`); its first pass begins on its first tick, sent
/// once the handle is in the runtime.
retention_keeper_actor::behavior_type retention_keeper(
  retention_keeper_actor::stateful_pointer<retention_keeper_state> self, runtime_ptr rt);

} // namespace stepwise
