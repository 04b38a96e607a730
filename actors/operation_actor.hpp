#pragma once

#include <functional>
#include <optional>
#include <random>
#include <vector>

#include <variant>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/protocols.hpp"
#include "actors/runtime.hpp"
#include "engine/progress.hpp"
#include "engine/stop.hpp"

namespace stepwise {

/// How an operation actor starts.
enum class op_start : uint8_t {
  /// Just created: the given action is durable, carry it out.
  execute,
  /// Loaded after a restart or a takeover: continue where it stopped, and
  /// tell a wait's watcher again (it may not know the wait).
  recover,
  /// Loaded after passivation (its wake-up time came, or a request
  /// addressed it): continue where it stopped; a wait's watcher still has
  /// it.
  resume,
  /// Loaded for a request (retry of a failed operation): wait for it.
  idle,
};

/// A request answered once the commit in flight is durable: a command
/// with the operation, a signal with a `signal_result`.
using commit_waiter =
  std::variant<caf::typed_response_promise<operation>, caf::typed_response_promise<signal_result>>;

/// What an operation actor does to keep transient values (overrides) whole
/// (operation_transient.cpp).
struct transient_upkeep {
  /// The actor began with an operation that had run before (a restart, a
  /// wake-up, a retry): the values of its `producing_transient` steps are
  /// missing until those steps run again.
  bool rebuild_due = false;
  /// While they run again: the action they run before, the steps left and
  /// the generation of the one running.
  std::optional<next_action> before;
  std::vector<size_t> left;
  uint64_t gen = 0;
  /// The values a step that does not run again was given, to tell whether
  /// it changed them.
  std::optional<transient_map> given;
  /// Such a step set values that nothing would set again: passivating
  /// would lose them.
  bool pinned = false;
};

/// The state of one operation actor. The actor owns its operation: only it
/// changes it, one checkpoint at a time.
struct operation_state {
  static inline const char* name = "stepwise.operation";

  runtime_ptr rt;
  internal_dispatcher_actor dispatcher;
  workflow_ptr wf;
  /// The working copy (ahead of the store while a commit is in flight).
  operation op;
  /// The last durable snapshot: what queries see.
  op_snapshot committed;
  /// The snapshot being committed.
  op_snapshot in_flight;
  /// The input with its secret values opened, once a step needed them
  /// (operation_secrets.cpp); never stored.
  std::shared_ptr<const boost::json::object> opened_input;
  transient_map transient;
  transient_upkeep upkeep;
  /// Bumped by every step dispatch and timer: late messages carry an old
  /// generation and are dropped (CAF 0.17 cannot cancel a delayed message).
  uint64_t gen = 0;
  bool step_running = false;
  /// The attempt in flight: its number, and its stop request.
  int32_t running_attempt = 0;
  std::optional<stop_source> stop;
  /// The wait (step index, attempt) whose watcher was told about it.
  size_t watched_step = SIZE_MAX;
  int32_t watched_attempt = 0;
  bool committing = false;
  bool deadline_armed = false;
  /// Carried out when the commit in flight is durable.
  next_action pending;
  /// A step held back until the lease is surely held again.
  next_action awaiting_lease;
  /// Answered when the commit in flight is durable.
  std::vector<commit_waiter> on_commit;
  /// Events of a start not yet written (an attempt begun by a timer runs at
  /// once; its start is written with its result).
  std::vector<event> carry;
  /// When the wait that a timer just ended was due.
  time_point woken_due;
  /// When the attempt that a timer begins early (`start_lead`) is due.
  time_point start_at;
  /// Requests that arrived while a commit was in flight.
  std::vector<std::function<void()>> deferred;
  std::minstd_rand rng;

  ~operation_state();
};

/// Drives one operation through its steps; see operation_state.
operation_actor::behavior_type drive_operation(
  operation_actor::stateful_pointer<operation_state> self, runtime_ptr rt,
  internal_dispatcher_actor dispatcher, operation op, next_action act, op_start mode);

} // namespace stepwise
