#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include "actors/runtime.hpp"
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

/// Brings the registry of `rt` up to the store: builds the versions other
/// processes stored, drops the workflows they deleted, and lets those
/// with a key or a limit take part in admission. Returns how many
/// versions were new. Blocks on the store.
[[nodiscard]] caf::expected<size_t> refresh_definitions(caf::actor_system& sys,
                                                        const runtime_ptr& rt);

/// Lets `wf` take part in admission when it declares a key or a limit,
/// starting the admission keeper if none runs.
void take_part(caf::actor_system& sys, const runtime_ptr& rt, const workflow& wf);

/// Builds workflow `name` v`version` from its stored body.
[[nodiscard]] caf::expected<workflow> build_definition(const stored_definition& def,
                                                       const caf::actor& broker);

} // namespace stepwise
