#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <caf/error.hpp>

#include "engine/operation.hpp"

namespace stepwise {

/// What a client may ask of an existing operation.
enum class command : uint8_t {
  /// Stop a pending, running or waiting operation.
  cancel,
  /// Resume a failed operation at its failed step, or re-run the
  /// incomplete best-effort steps of a succeeded one.
  retry,
  /// Stop at the next step boundary until resumed.
  pause,
  /// Continue a paused operation at the step where it stopped.
  resume,
  /// Record a failed, paused or waiting step `skipped` and go on with the
  /// next one.
  skip,
};

/// What a retry changes before it runs (`engine::retry`).
struct retry_options {
  /// A JSON merge patch (RFC 7396) on the operation's input.
  std::optional<boost::json::object> input_patch{};
  /// Run this step, and those after it, again.
  std::string from_step{};
};

/// A client's command and what it carries (the dispatcher's and the
/// operation actor's message). Members have initializers so that braced
/// lists naming a few of them stay warning-free.
struct command_request {
  command kind = command::cancel;
  /// Who asks (see `event::by`): the events it writes carry it.
  std::string by{};
  /// retry: a JSON merge patch (RFC 7396) on the operation's input. Secret
  /// paths it sets are sealed anew; the rest stays sealed.
  std::optional<boost::json::object> input_patch{};
  /// retry: the step to run again, with every step after it (empty: go on
  /// where the operation stopped).
  std::string from_step{};
  /// skip: the step to skip, and why (1 to `max_skip_reason` bytes).
  std::string step{};
  std::string reason{};

  // Named construction: the request a host sends as
  // `(command_atom, id, command_request::cancel())`, and so on.

  static command_request cancel() {
    return {command::cancel};
  }
  /// Resume a failed operation where it stopped, or (`opts`) with its
  /// input patched or from an earlier step.
  static command_request retry(retry_options opts = {});
  static command_request pause() {
    return {command::pause};
  }
  static command_request resume() {
    return {command::resume};
  }
  /// Record step `step_name` skipped, for `why`, and go on.
  static command_request skip(std::string step_name, std::string why) {
    command_request r{command::skip};
    r.step = std::move(step_name);
    r.reason = std::move(why);
    return r;
  }
  command_request asked_by(std::string who) && {
    by = std::move(who);
    return std::move(*this);
  }
};

/// The longest reason a skip may give, in bytes.
inline constexpr size_t max_skip_reason = 1024;

/// Returns the `errc::invalid_argument` error for the first field of `req`
/// that is wrong for `op`, whatever its state (a step it does not have, a
/// missing or too long reason, a patch holding sealed-value forms), naming
/// that field; or no error.
caf::error check_fields(const operation& op, const command_request& req);

/// Returns the index of the step named `name` in `op`, or `op.steps.size()`.
size_t step_index(const operation& op, const std::string& name);

const std::string& to_string(command x);

/// A command as a client asks for it.
/// The command `to_string` names `s`, or none.
std::optional<command> parse_command(std::string_view s);

/// Returns whether `op`'s state allows `cmd` at `now`. A retry is refused
/// once the operation's deadline has passed: its new run would fail at
/// once.
bool allows(const operation& op, command cmd, time_point now);

/// As above, for a request with what it carries: a retry's `from_step`
/// must not lie past the step where the operation stopped, a skip's step
/// must be the failed, paused or waiting one. `req` passed
/// `check_fields`.
bool allows(const operation& op, const command_request& req, time_point now);

/// Returns the `errc::invalid_state` error that refuses `cmd` for `op` at
/// `now`, naming the operation, its state and the states that allow `cmd`
/// (or the deadline that passed).
caf::error refusal(const operation& op, command cmd, time_point now);

/// The refusal of `req` (`allows` said no).
caf::error refusal(const operation& op, const command_request& req, time_point now);

/// Returns the `errc::invalid_state` error that refuses a signal for an
/// operation that has ended.
caf::error signal_refusal(const operation& op);

/// Returns whether `op` stored a signal with id `signal_id` (never for an
/// empty id).
bool has_signal(const operation& op, const std::string& signal_id);

} // namespace stepwise
