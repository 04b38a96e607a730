#pragma once

#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/protocols.hpp"

namespace stepwise {

/// The state of the event fan-out: the subscribers of the committed events
/// (the gateway's event hub, the outbox, a host's listeners). The commit
/// writer sends it each committed batch, in log order; it passes each on
/// to every subscriber, in that order. A subscriber that ends is dropped.
struct event_fanout_state {
  static inline const char* name = "stepwise.events";

  std::vector<event_listener> subscribers;
};

/// Spawned by `launch_runtime`, with the subscribers it starts with (none
/// there); see event_fanout_state.
event_fanout_actor::behavior_type event_fanout(
  event_fanout_actor::stateful_pointer<event_fanout_state> self,
  std::vector<event_listener> subscribers);

} // namespace stepwise
