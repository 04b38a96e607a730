#pragma once

#include <caf/fwd.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/protocols.hpp"
#include "actors/runtime.hpp"

namespace stepwise {

/// Serves store reads. Spawned detached (its own thread), because store
/// calls block; the engine keeps a few and picks them round robin.
///
/// Its protocol: `reader_actor` (actors/protocols.hpp).
reader_actor::behavior_type serve_reads(reader_actor::pointer self, runtime_ptr rt);

} // namespace stepwise
