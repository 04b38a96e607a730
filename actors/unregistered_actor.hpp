#pragma once

#include <functional>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/protocols.hpp"
#include "actors/runtime.hpp"
#include "engine/operation.hpp"

namespace stepwise {

/// The state of the actor that stands in for an operation actor when the
/// operation's workflow version is not registered in this process (after
/// a restart without that version, or a takeover by a process that lacks
/// it). Without the definition nothing can run: the actor fails a live
/// operation durably (`progress::fail_unregistered`, through the commit
/// writer) and refuses the commands the state would allow, naming the
/// workflow and version. It ends as an operation actor ends, with
/// `finished_atom` to the dispatcher, so waiters are answered. It speaks
/// the operation actor's protocol; what only a running operation gets
/// (results, timers, admission) it drops.
struct unregistered_state {
  static inline const char* name = "stepwise.unregistered";

  runtime_ptr rt;
  internal_dispatcher_actor dispatcher;
  /// The operation as last written (what requests see).
  op_snapshot committed;
  /// The failure being written.
  op_snapshot in_flight;
  /// Requests that arrived while the failure was being written.
  std::vector<std::function<void()>> deferred;
};

/// Fails `op` (unless it has ended already) and answers requests about it;
/// see unregistered_state.
operation_actor::behavior_type unregistered_actor(
  operation_actor::stateful_pointer<unregistered_state> self, runtime_ptr rt,
  internal_dispatcher_actor dispatcher, operation op);

} // namespace stepwise
