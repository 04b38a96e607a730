#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>

#include "engine/commands.hpp"
#include "engine/event.hpp"
#include "engine/operation.hpp"
#include "engine/store.hpp"

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
/// (command_atom, id, command) -> operation; to an operation's own actor
/// (command_atom, command).
using command_atom = caf::atom_constant<caf::atom("sw_cmd")>;
/// (list_atom, list_filter) -> operation_page.
using list_atom = caf::atom_constant<caf::atom("sw_list")>;
/// (events_atom, after, limit) -> std::vector<event>.
using events_atom = caf::atom_constant<caf::atom("sw_events")>;
/// (wait_atom, id) -> operation, once it is terminal.
using wait_atom = caf::atom_constant<caf::atom("sw_wait")>;
/// (subscribe_atom, listener): `event_batch` messages to `listener` from now on.
using subscribe_atom = caf::atom_constant<caf::atom("sw_sub")>;
/// (signal_atom, id, signal_request) -> signal_result.
using signal_atom = caf::atom_constant<caf::atom("sw_signal")>;
/// (shutdown_atom): stop taking work.
using shutdown_atom = caf::atom_constant<caf::atom("sw_stop")>;

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

/// A batch of committed events, pushed to subscribers in log order.
struct event_batch {
  std::vector<event> events;
};

} // namespace stepwise

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::operation)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::list_filter)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::operation_page)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<stepwise::event>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::start_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::start_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::event_batch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::signal_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::signal_result)
