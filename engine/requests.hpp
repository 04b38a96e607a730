#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/make_message.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "engine/commands.hpp"
#include "engine/event.hpp"
#include "engine/lease_store.hpp"
#include "engine/operation.hpp"
#include "engine/store.hpp"
#include "engine/wait.hpp"

/// The requests an embedding program may send to `engine::dispatcher()` instead
/// of calling the handle's functions (which send the same messages), and
/// the types they carry. All are local-only messages, so they are
/// whitelisted rather than serializable.
namespace stepwise {

// -- requests to the dispatcher ---------------------------------------------------

/// (start_atom, start_request) -> start_result.
using start_atom = caf::atom_constant<caf::atom("sw_start")>;
/// (get_atom, id) -> operation.
using get_atom = caf::atom_constant<caf::atom("sw_get")>;
/// (command_atom, id, command_request) -> operation; to an operation's own
/// actor (command_atom, command_request).
using command_atom = caf::atom_constant<caf::atom("sw_cmd")>;
/// (list_atom, list_filter) -> operation_page.
using list_atom = caf::atom_constant<caf::atom("sw_list")>;
/// (events_atom, after, limit) -> std::vector<event>.
using events_atom = caf::atom_constant<caf::atom("sw_events")>;
/// (wait_atom, id) -> operation, once it is terminal; (wait_atom, id,
/// timespan) -> operation, once it is terminal or as it is when the time
/// is up, whichever comes first.
using wait_atom = caf::atom_constant<caf::atom("sw_wait")>;
/// (subscribe_atom, listener): `event_batch` messages to `listener` from now on.
using subscribe_atom = caf::atom_constant<caf::atom("sw_sub")>;
/// (signal_atom, id, signal_request) -> signal_result.
using signal_atom = caf::atom_constant<caf::atom("sw_signal")>;

// -- what they carry ------------------------------------------------------------

/// A request to start an operation.
struct start_request {
  std::string workflow;
  /// Empty: the newest registered version.
  std::optional<int32_t> version;
  boost::json::object input;
  /// Same key and same request again: the same operation; different
  /// request: `errc::idempotency_conflict`.
  std::string idempotency_key;
  std::optional<time_point> deadline;
  // The members below have initializers, so that hosts that list the
  // ones above in braces stay warning-free.
  /// The operation whose step starts this one (empty: none).
  std::string parent_id{};
  /// The schedule whose fire at `fire_time` starts it (empty: none):
  /// `schedule_fired` is written with its creation.
  std::string schedule_id{};
  std::optional<time_point> fire_time{};
  /// Who asks (see `event::by`): its events carry it.
  std::string by{};
  /// Labels to find the operation by (engine/labels.hpp): at most 16, keys
  /// of 1 to 63 characters `a-z 0-9 _ . -`, values of up to 256 bytes.
  std::map<std::string, std::string> labels{};

  // Named construction, for C++17 (which has no designated initializers):
  //   start_request::of("invoice").with_input({{"n", 1}}).with_key("inv-1")
  // Each call fills one member of the temporary and passes it on.

  /// A request to start `workflow`'s newest version with an empty input.
  static start_request of(std::string workflow) {
    start_request r;
    r.workflow = std::move(workflow);
    return r;
  }
  start_request with_input(boost::json::object x) && {
    input = std::move(x);
    return std::move(*this);
  }
  start_request with_key(std::string x) && {
    idempotency_key = std::move(x);
    return std::move(*this);
  }
  start_request with_version(int32_t x) && {
    version = x;
    return std::move(*this);
  }
  start_request with_deadline(time_point x) && {
    deadline = x;
    return std::move(*this);
  }
  start_request with_label(std::string key, std::string value) && {
    labels[std::move(key)] = std::move(value);
    return std::move(*this);
  }
  start_request asked_by(std::string who) && {
    by = std::move(who);
    return std::move(*this);
  }
};

/// The answer to a start request.
struct start_result {
  operation op;
  /// False when an idempotency key replayed an existing operation.
  bool created = true;
};

/// A signal for an operation: a named external event with a JSON payload.
struct signal_request {
  /// 1 to 64 characters of `A-Z a-z 0-9 _ . -`.
  std::string name;
  boost::json::value payload;
  /// The sender's id for the signal: a repeat with the same id is a no-op.
  /// Empty: the engine makes one up (every such signal is new).
  std::string signal_id;
  /// Who sends it (see `event::by`): `signal_received` carries it.
  std::string by{};

  // Named construction, as `start_request`'s:
  //   signal_request::of("approved").with_payload({{"by", "ann"}}).with_id("ok-1")

  /// Signal `name` with a null payload and an id the engine makes up.
  static signal_request of(std::string name) {
    signal_request r;
    r.name = std::move(name);
    return r;
  }
  signal_request with_payload(boost::json::value x) && {
    payload = std::move(x);
    return std::move(*this);
  }
  signal_request with_id(std::string x) && {
    signal_id = std::move(x);
    return std::move(*this);
  }
  signal_request asked_by(std::string who) && {
    by = std::move(who);
    return std::move(*this);
  }
};

/// Returns whether `name` may name a signal.
inline bool valid_signal_name(std::string_view name) {
  if (name.empty() || name.size() > 64)
    return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
          || c == '.' || c == '-'))
      return false;
  return true;
}

/// The answer to a signal.
struct signal_result {
  operation op;
  /// True when a signal with the same id was stored before: nothing new
  /// was written.
  bool duplicate = false;
};

/// (cluster_atom) -> cluster_view: the servers sharing the store.
using cluster_atom = caf::atom_constant<caf::atom("sw_cluster")>;

/// The processes sharing the store, as `GET /api/v1/cluster` shows them.
struct cluster_view {
  /// The id of the process that answered (its lease's owner id; on a store
  /// of one process, the node part of the ids it makes).
  std::string self;
  /// The live ones, oldest first; on a store of one process, that one,
  /// with no lease (`renewed_at` and `lease_expires_at` zero).
  std::vector<owner_info> servers;
};

/// A batch of committed events, pushed to subscribers in log order.
struct event_batch {
  std::vector<event> events;
};

// -- the protocol -------------------------------------------------------------

/// What subscribes to the events (`subscribe_atom`): it gets every batch
/// of committed events, in log order.
using event_listener = caf::typed_actor<caf::reacts_to<event_batch>>;

/// The dispatcher as a host's actors (and the HTTP gateway) talk to it:
/// every request a host may send, and its answer. A message it does not
/// take does not compile, and neither does a handler for a wrong answer.
/// Errors come as `caf::error` with an `errc` code (`e == errc::not_found`).
/// What the engine's own parts send it (watchers' reports, the handle's
/// shutdown, ...) is an internal protocol that extends this one.
using dispatcher_actor = caf::typed_actor<
  // Starts an operation (or finds the one its idempotency key names).
  caf::replies_to<start_atom, start_request>::with<start_result>,
  // An operation by id.
  caf::replies_to<get_atom, std::string>::with<operation>,
  // Cancel, retry, pause, resume, skip.
  caf::replies_to<command_atom, std::string, command_request>::with<operation>,
  // A signal for an operation.
  caf::replies_to<signal_atom, std::string, signal_request>::with<signal_result>,
  // A page of operations, newest first.
  caf::replies_to<list_atom, list_filter>::with<operation_page>,
  // Events after a seq, at most a number of them.
  caf::replies_to<events_atom, int64_t, uint64_t>::with<std::vector<event>>,
  // An operation once it has ended (or, given a timespan, as it is then).
  caf::replies_to<wait_atom, std::string>::with<operation>,
  caf::replies_to<wait_atom, std::string, caf::timespan>::with<operation>,
  // Every batch of committed events from now on, to a listener.
  caf::reacts_to<subscribe_atom, event_listener>,
  // The servers sharing the store.
  caf::replies_to<cluster_atom>::with<cluster_view>>;

} // namespace stepwise

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::command_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::operation)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::list_filter)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::operation_page)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<stepwise::event>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::start_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::start_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::event_batch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::signal_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::signal_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::cluster_view)
