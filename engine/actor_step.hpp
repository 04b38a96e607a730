#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "engine/outcome.hpp"
#include "engine/step_context.hpp"
#include "engine/stop.hpp"

/// The messages between an operation and a step actor (`make_actor_step`):
/// an actor of the embedding program that carries out a step's attempts.
namespace stepwise {

/// One attempt, sent to the step actor as a request. The actor answers
/// with a `step_reply`, now or later (through a response promise); the
/// engine waits without holding a thread, bounded by the step's timeout.
struct step_attempt {
  std::string operation_id;
  std::string step;
  /// 1 for the first attempt. A reply is matched to its attempt by the
  /// request itself: a late reply to an abandoned attempt is dropped.
  int32_t attempt = 0;
  /// The same for every attempt of this step of this operation: pass it to
  /// external systems to make the step idempotent.
  std::string idempotency_key;
  std::shared_ptr<const boost::json::object> input;
  /// The operation's persisted data as the attempt starts.
  boost::json::object data;
  /// Raised when the engine abandons the attempt (timeout, cancel, pause,
  /// deadline); the actor is also sent `(step_stop_atom, operation_id,
  /// attempt)` then.
  stop_token stop;
};

/// The step actor's answer to a `step_attempt`.
struct step_reply {
  outcome result;
  /// The operation's data after the attempt; none leaves it unchanged.
  std::optional<boost::json::object> data;
  /// Events to append in the same commit as the result.
  std::vector<emitted_event> emitted;
};

/// Engine -> step actor: (step_stop_atom, operation_id, attempt), the
/// engine abandoned that attempt; its reply will be dropped.
using step_stop_atom = caf::atom_constant<caf::atom("sw_stepstp")>;

/// The protocol of a step actor (`make_actor_step`): it carries out each
/// attempt it is asked for and is told when one was abandoned.
using step_actor = caf::typed_actor<caf::replies_to<step_attempt>::with<step_reply>,
                                    caf::reacts_to<step_stop_atom, std::string, int32_t>>;

} // namespace stepwise

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::step_attempt)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::step_reply)
