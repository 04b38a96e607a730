#pragma once

#include <atomic>

#include <caf/actor_system.hpp>

#include "actors/messages.hpp"
#include "actors/protocols.hpp"
#include "actors/runtime.hpp"
#include "engine/engine.hpp"

namespace stepwise {

/// What all copies of an engine handle share; the last one shuts it down.
struct engine::shared {
  runtime_ptr rt;
  caf::actor_system* sys = nullptr;
  internal_dispatcher_actor actor;
  /// Carries the requests of threads outside CAF (`ask`).
  bridge_actor bridge;
  std::atomic<bool> down{false};

  void shutdown();

  ~shared() {
    shutdown();
  }
};

} // namespace stepwise
