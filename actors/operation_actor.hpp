#pragma once

#include <functional>
#include <optional>
#include <random>
#include <vector>

#include <caf/response_promise.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/runtime.hpp"
#include "engine/progress.hpp"

namespace stepwise {

/// How an operation actor starts.
enum class op_start : uint8_t {
  /// Just created: the given action is durable, carry it out.
  execute,
  /// Loaded from the store (restart, wake-up): continue where it stopped.
  recover,
  /// Loaded for a request (retry of a failed operation): wait for it.
  idle,
};

/// The state of one operation actor. The actor owns its operation: only it
/// changes it, one checkpoint at a time.
struct operation_state {
  static inline const char* name = "stepwise.operation";

  runtime_ptr rt;
  caf::actor dispatcher;
  workflow_ptr wf;
  /// The working copy (ahead of the store while a commit is in flight).
  operation op;
  /// The last durable snapshot: what queries see.
  op_snapshot committed;
  /// The snapshot being committed.
  op_snapshot in_flight;
  transient_map transient;
  /// Bumped by every step dispatch and timer: late messages carry an old
  /// generation and are dropped (CAF 0.17 cannot cancel a delayed message).
  uint64_t gen = 0;
  bool step_running = false;
  /// The attempt in flight: its number, and its stop request.
  int32_t running_attempt = 0;
  std::optional<stop_source> stop;
  bool committing = false;
  bool deadline_armed = false;
  /// Carried out when the commit in flight is durable.
  next_action pending;
  /// A step held back until the lease is surely held again.
  next_action awaiting_lease;
  /// Answered with the operation when the commit in flight is durable.
  std::vector<caf::response_promise> on_commit;
  /// Events of a start not yet written (an attempt begun by a timer runs at
  /// once; its start is written with its result).
  std::vector<event> carry;
  /// When the wait that a timer just ended was due.
  time_point woken_due;
  /// Requests that arrived while a commit was in flight.
  std::vector<std::function<void()>> deferred;
  std::minstd_rand rng;

  ~operation_state();
};

/// Drives one operation through its steps; see operation_state.
caf::behavior operation_actor(caf::stateful_actor<operation_state>* self,
                              runtime_ptr rt, caf::actor dispatcher, operation op,
                              next_action act, op_start mode);

} // namespace stepwise
