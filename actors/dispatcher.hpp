#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/event_based_actor.hpp>
#include <caf/message_handler.hpp>
#include <caf/response_promise.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/messages.hpp"
#include "actors/operation_actor.hpp"
#include "actors/runtime.hpp"
#include "actors/sleeper_set.hpp"
#include "engine/progress.hpp"

namespace stepwise {

/// A create waiting for its commit.
struct pending_create {
  caf::response_promise rp;
  std::shared_ptr<const operation> op;
  next_action act;
};

/// The state of the dispatcher: the one actor that knows every operation of
/// this process. It creates operations, routes requests by operation id to
/// the operation actors, keeps the wake-up times of passivated operations
/// (one timer for all of them), resumes operations at start and on
/// takeover, and fans committed events out to subscribers. (The embedding
/// API calls the whole `engine`; this is the actor at its centre.)
struct dispatcher_state {
  static inline const char* name = "stepwise.dispatcher";

  runtime_ptr rt;
  /// Operations with a live actor.
  std::unordered_map<std::string, caf::actor> live;
  /// Operations between two owners (passivating, or being loaded): requests
  /// for them wait here, in order, until an actor owns the operation again.
  std::unordered_map<std::string, std::vector<std::function<void(const caf::actor&)>>> held;
  /// Passivated operations and their wake-up times.
  sleeper_set sleepers;
  /// Wake-up times of operations asked to passivate, until they answer.
  std::unordered_map<std::string, time_point> passivating;
  /// The due time of the armed sleeper timer and its generation.
  std::optional<time_point> armed;
  uint64_t wake_gen = 0;
  uint64_t next_tag = 0;
  std::unordered_map<uint64_t, pending_create> creates;
  /// Starts written queued, answered with what the next admission round
  /// says of them (admitted, or what they wait for).
  std::vector<pending_create> queued_answers;
  std::unordered_multimap<std::string, caf::response_promise> waiters;
  std::vector<caf::actor> subscribers;
  bool stopping = false;
  /// Whether the periodic admission round runs.
  bool admission_polling = false;
  /// Live actors at the last heap trim.
  int64_t live_at_trim = 0;
  /// Steps started, as counted at the last tidy tick.
  uint64_t steps_at_tidy = 0;
  /// A recovery freed the operations it loaded: trim once quiet.
  bool trim_wanted = false;
  /// Start-up recovery reads its pages: every other message waits in the
  /// mailbox until the last one is in.
  bool recovering = false;
  /// Operations resumed by the recovery under way.
  size_t recovered_count = 0;
  /// Node part of generated ids, distinct per process.
  uint32_t node = 0;
  uint32_t counter = 0;
};

using dispatcher_ptr = caf::stateful_actor<dispatcher_state>*;

/// Spawned by `engine::launch`; see dispatcher_state.
caf::behavior dispatcher(dispatcher_ptr self, runtime_ptr rt);

// -- the dispatcher's parts (one source file each) ---------------------------

/// Requests of clients: start, get, cancel, retry, list, events, wait,
/// shutdown (dispatcher_requests.cpp).
caf::message_handler dispatcher_requests(dispatcher_ptr self);

/// Passivation and wake-up of long-waiting operations
/// (dispatcher_parking.cpp).
caf::message_handler dispatcher_parking(dispatcher_ptr self);

/// Gives operation `op` an actor, started per `mode` (dispatcher.cpp).
caf::actor spawn_operation(dispatcher_ptr self, operation op, next_action act, op_start mode);

/// Routes a request about operation `id` to the actor that owns it, or
/// runs `absent` when no actor does. While the operation is between two
/// actors the request is held; should it then have vanished (null actor),
/// `absent` runs instead (dispatcher.cpp).
void route(dispatcher_ptr self, const std::string& id,
           std::function<void(const caf::actor&)> forward, std::function<void()> absent);

/// Hands every request held for `id` to `a` (a null `a`: the operation has
/// no actor; each falls back to its `absent`), in arrival order
/// (dispatcher.cpp).
void release(dispatcher_ptr self, const std::string& id, const caf::actor& a);

/// Returns whether the current message comes from the actor that owns
/// `id` now. An actor stopped by a lost lease may still talk while a new
/// one already drives the same operation (dispatcher.cpp).
bool from_owner(dispatcher_ptr self, const std::string& id);

/// Loads a passivated (or unowned) operation and gives it an actor again;
/// requests for it are held meanwhile (dispatcher_parking.cpp).
void wake(dispatcher_ptr self, const std::string& id);

/// Passivates `id` until `due`: only its wake-up time stays in memory
/// (dispatcher_parking.cpp).
void add_sleeper(dispatcher_ptr self, const std::string& id, time_point due);

/// Forgets the wake-up time of `id`, if any (dispatcher_parking.cpp).
void forget_sleeper(dispatcher_ptr self, const std::string& id);

/// Admission rounds' outcomes and the periodic look for admitted
/// operations (dispatcher_admission.cpp).
caf::message_handler dispatcher_admission(dispatcher_ptr self);

/// Asks the writer for an admission round, when any workflow takes part
/// (dispatcher_admission.cpp).
void request_admission(dispatcher_ptr self);

/// Starts the periodic admission round, when any workflow takes part, or
/// runs one now when it runs already (dispatcher_admission.cpp).
void start_admission(dispatcher_ptr self);

} // namespace stepwise
