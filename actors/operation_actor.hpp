#pragma once

#include <functional>
#include <optional>
#include <random>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/commit_pipeline.hpp"
#include "actors/protocols.hpp"
#include "actors/runtime.hpp"
#include "actors/work_in_hand.hpp"
#include "engine/progress.hpp"
#include "engine/stop.hpp"

namespace stepwise {

/// What an operation actor that creates its operation is given: the
/// request, and what the dispatcher decided of it.
struct create_order {
  start_request req;
  workflow_ptr wf;
  std::string id;
  /// When the dispatcher took the start: the operation's creation time.
  time_point at;
  /// Its serialization key (`workflow::key_of`).
  std::string key;
  /// The dispatcher's name for this create (`created_atom`).
  uint64_t tag = 0;
  /// Whether a taken idempotency key is read back to answer with the
  /// operation holding it (not for a child's slot: its parent reads).
  bool read_replay = true;
  /// The create's events, kept to write it again once: its key was taken
  /// by an operation that retention removed before the replay read it.
  std::vector<event> events;
  bool again = false;
};

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

/// The wait (step index, attempt) whose watcher was told about it.
struct watched_wait {
  size_t step = SIZE_MAX;
  int32_t attempt = 0;

  bool is(size_t s, int32_t a) const {
    return step == s && attempt == a;
  }
};

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

/// What an operation actor keeps of its children (operation_children.cpp).
struct children_upkeep {
  /// Numbers its requests about children, to tell a late answer apart.
  uint64_t seq = 0;
  /// The result of a step whose children are being started: written once
  /// they are (the commit pipeline is `preparing` meanwhile).
  struct starting {
    uint64_t seq = 0;
    size_t step = 0;
    outcome result;
    duration took{0};
    time_point now;
    std::vector<event> events;
    /// (key, id) of each child; the keys of those whose slot was taken
    /// before (the step ran again), whose ids are read from the store.
    std::vector<std::pair<std::string, std::string>> ids;
    std::vector<std::string> replayed;
  };
  std::optional<starting> start;
  /// The children wait in hand: its step and attempt, its timeout, the
  /// request of its last look at the children, and whether that look (the
  /// store's list) is under way.
  size_t wait_step = SIZE_MAX;
  int32_t wait_attempt = 0;
  time_point wait_due;
  uint64_t wait_seq = 0;
  bool reading = false;
  bool timeout_armed = false;
};

/// The state of one operation actor. The actor owns its operation: only it
/// changes it, one checkpoint at a time.
struct operation_state {
  static inline const char* name = "stepwise.operation";

  // -- where it runs
  runtime_ptr rt;
  internal_dispatcher_actor dispatcher;
  workflow_ptr wf;
  std::minstd_rand rng;

  // -- the operation
  /// The working copy (ahead of the store while a commit is in flight).
  operation op;
  /// The stored copy and the commit in flight.
  commit_pipeline commit;
  /// The attempt or wait in hand, and its generation.
  work_in_hand work;
  /// The wait whose watcher was told about it.
  watched_wait watched;

  // -- values that are never stored
  /// The input with its secret values opened, once a step needed them
  /// (operation_secrets.cpp).
  std::shared_ptr<const boost::json::object> opened_input;
  transient_map transient;
  transient_upkeep upkeep;

  /// Who asked for the pause that the running attempt's end takes (see
  /// `event::by`): its `operation_paused` carries it. Not stored: a pause
  /// taken after a restart names nobody.
  std::string pause_by;

  // -- child operations
  children_upkeep kids;

  /// Until its create is written (operation_create.cpp).
  std::optional<create_order> creating;

  // -- timers
  bool deadline_armed = false;
  /// A step held back until the lease is surely held again.
  next_action awaiting_lease;
  /// The lease's epoch when this actor began (`lease_keeper::epoch`).
  uint64_t lease_epoch = 0;
  /// When the wait that a timer just ended was due.
  time_point woken_due;
  /// Until when the passivation under way gives the operation up.
  time_point parking_due;
  /// When the attempt that a timer begins early (`start_lead`) is due.
  time_point start_at;
  /// Timers armed and not yet delivered: the engine's gauge counts them,
  /// and those still out when the actor ends (passivated, ended) are taken
  /// off it then, as they will never be delivered.
  uint32_t timers_out = 0;

  ~operation_state();
};

/// Drives one operation through its steps; see operation_state.
operation_actor::behavior_type drive_operation(
  operation_actor::stateful_pointer<operation_state> self, runtime_ptr rt,
  internal_dispatcher_actor dispatcher, operation op, next_action act, op_start mode);

/// Creates an operation as `order` says (its first transition, its create
/// checkpoint), tells the dispatcher how that went, and then drives it as
/// `drive_operation` does (operation_create.cpp).
operation_actor::behavior_type create_operation(
  operation_actor::stateful_pointer<operation_state> self, runtime_ptr rt,
  internal_dispatcher_actor dispatcher, create_order order);

} // namespace stepwise
