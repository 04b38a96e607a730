#pragma once

#include <memory>

#include <caf/fwd.hpp>

#include "engine/engine.hpp"
#include "http/event_hub.hpp"

namespace stepwise::http {

/// On a store that several processes share: the one reader of the store's
/// events for every long poll and stream of this process. It keeps `hub`
/// complete and in seq order, so that readers are served from its cache
/// as on a store of one process (no store read per stream per poll):
/// - this process's committed batches (it subscribes to `eng`) go to the
///   hub at once when they follow the last event it has;
/// - otherwise (another process committed in between), and whenever the
///   store tells of a commit (`engine::on_shared_events`) beyond what it
///   has, it reads the store after its last event, page by page;
/// - every second it reads anyway: a notification lost with a dropped
///   connection is made up for then.
/// Event numbers are taken in commit order on a shared store (one counter
/// row, held until COMMIT), so a read after the last event never skips one
/// that commits later. Reads block: it runs on a thread of its own.
/// Returns it (as the listener to stop at shutdown); call
/// `eng.on_shared_events({})` before the engine goes.
event_listener spawn_shared_event_feed(caf::actor_system& sys, engine eng,
                                       std::shared_ptr<event_hub> hub);

} // namespace stepwise::http
