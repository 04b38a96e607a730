#pragma once

#include <caf/actor.hpp>
#include <caf/expected.hpp>

#include "engine/log.hpp"
#include "engine/registry.hpp"
#include "engine/store.hpp"

namespace stepwise {

/// Builds the stored versions of workflows defined as data that `reg`
/// lacks and adds them; returns how many it added. A stored version that
/// no longer builds (a newer server's definition) is logged to `log` and
/// left out: its operations fail as those of an unknown version do.
/// Blocks on the store.
[[nodiscard]] caf::expected<size_t> load_definitions(store& st, registry& reg,
                                                     const caf::actor& broker, const log_sink& log);

/// Builds workflow `name` v`version` from its stored body.
[[nodiscard]] caf::expected<workflow> build_definition(const stored_definition& def,
                                                       const caf::actor& broker);

} // namespace stepwise
