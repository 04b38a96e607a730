#pragma once

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include "engine/config.hpp"
#include "engine/engine.hpp"
#include "engine/registry.hpp"

namespace stepwise {

/// Opens the store `cfg.store_uri` names (`open_store`: SQLite by default,
/// or PostgreSQL) and launches the engine on it (`engine::launch`, which
/// resumes what the store holds). Fails with context when the store cannot
/// be opened or recovery fails.
[[nodiscard]] caf::expected<engine> open_engine(caf::actor_system& sys, engine_config cfg,
                                                registry workflows);

} // namespace stepwise
