#pragma once

#include <caf/fwd.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/runtime.hpp"

namespace stepwise {

/// Serves store reads. Spawned detached (its own thread), because store
/// calls block; the engine keeps a few and picks them round robin.
///
/// Messages: (get_atom, id) -> operation (presented) or not_found;
/// (load_atom, id) -> optional<operation> (raw); (load_key_atom, key);
/// (list_atom, list_filter) -> operation_page; (events_atom, after, limit)
/// -> vector<event>.
caf::behavior reader_actor(caf::event_based_actor* self, runtime_ptr rt);

} // namespace stepwise
