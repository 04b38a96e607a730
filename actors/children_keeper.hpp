#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/protocols.hpp"
#include "actors/runtime.hpp"

namespace stepwise {

/// A children wait as the keeper holds it: the parent's children that
/// ended since it opened, and how many it waits for.
struct child_watch {
  uint64_t seq = 0;
  std::string of_step;
  uint64_t seen = 0;
  /// Not armed yet: the parent still reads its children.
  uint64_t need = UINT64_MAX;
  bool fail_fast = false;
};

/// The state of the children keeper: it counts the ends of a waiting
/// parent's children and nudges the parent once enough ended, and it
/// cancels the children of a canceled parent.
///
/// Why the keeper counts and the parent reads: a parent waiting for ten
/// thousand children must not be woken ten thousand times. While it waits,
/// the keeper counts its children's ends (the dispatcher tells it of every
/// end of a child or of a canceled operation) and nudges it once the count
/// reaches what the parent said it needs; the parent then reads its
/// children from the store and judges. The watch opens before the list is
/// read, and the keeper asks for the list itself: a child that ended before
/// the watch opened has its end durable before the list is read, so no end
/// is missed; one counted twice only nudges the parent early, and it reads
/// and judges again.
///
/// It reaches operations through the dispatcher, as any client does: a
/// cancel is a command, a nudge is routed by id (waking a sleeping parent).
struct children_keeper_state {
  static inline const char* name = "stepwise.children";

  runtime_ptr rt;
  internal_dispatcher_actor dispatcher;
  /// Children waits, by parent id.
  std::unordered_map<std::string, child_watch> watches;
  /// Canceled parents whose children are being listed, to be canceled
  /// but for those of these steps (their policy is to abandon them).
  std::unordered_map<std::string, std::vector<std::string>> cancels;
};

/// Spawned by `launch_runtime`; see children_keeper_state.
children_keeper_actor::behavior_type children_keeper(
  children_keeper_actor::stateful_pointer<children_keeper_state> self, runtime_ptr rt,
  internal_dispatcher_actor dispatcher);

} // namespace stepwise
