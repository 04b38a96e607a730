#pragma once

#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/response_promise.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/engine_core.hpp"
#include "actors/sleeper_set.hpp"
#include "engine/progress.hpp"

namespace stepwise {

/// A create waiting for its commit.
struct pending_create {
  caf::response_promise rp;
  std::shared_ptr<const operation> op;
  next_action act;
};

/// The state of the engine actor: routes requests by operation id to the
/// live operation actors, creates operations, keeps the wake-up times of
/// passivated operations (one timer for all of them), and fans committed
/// events out to subscribers.
struct engine_state {
  static inline const char* name = "stepwise.engine";

  core_ptr core;
  /// Operations with a live actor.
  std::unordered_map<std::string, caf::actor> live;
  /// Operations between two owners (passivating, or being loaded): requests
  /// for them wait here, in order, until an actor owns the operation again.
  std::unordered_map<std::string, std::vector<std::function<void(const caf::actor&)>>> held;
  /// Passivated operations and their wake-up times.
  sleeper_set sleepers;
  /// Wake-up times of operations asked to passivate, until they answer.
  std::unordered_map<std::string, time_point> passivating;
  /// The due time of the armed sleeper timer and its generation.
  std::optional<time_point> armed;
  uint64_t wake_gen = 0;
  uint64_t next_tag = 0;
  std::unordered_map<uint64_t, pending_create> creates;
  std::unordered_multimap<std::string, caf::response_promise> waiters;
  std::vector<caf::actor> subscribers;
  bool stopping = false;
  /// Live actors at the last heap trim.
  int64_t live_at_trim = 0;
  /// Node part of generated ids, distinct per process.
  uint32_t node = 0;
  uint32_t counter = 0;
};

/// Spawned by `engine::launch`; see engine_state.
caf::behavior engine_actor(caf::stateful_actor<engine_state>* self,
                           core_ptr core);

} // namespace stepwise
