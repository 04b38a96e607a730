#pragma once

#include <caf/typed_event_based_actor.hpp>

#include "actors/protocols.hpp"
#include "actors/runtime.hpp"

namespace stepwise {

/// Reads start-up recovery a page at a time for the dispatcher: given
/// where the last page ended, it asks a reader for the next and hands it
/// over as `(page_atom, recovered_ops)`, until the page that says it is the
/// last; then it quits. A failed read is tried again a second later (on
/// the engine's clock), as many times as it takes: the dispatcher holds
/// every request until the last page is in.
recovery_pager_actor::behavior_type recovery_pager(recovery_pager_actor::pointer self,
                                                   runtime_ptr rt,
                                                   internal_dispatcher_actor dispatcher,
                                                   active_position after);

} // namespace stepwise
