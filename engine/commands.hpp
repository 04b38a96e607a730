#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

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
};

std::string_view to_string(command x);

/// The command `to_string` names `s`, or none.
std::optional<command> parse_command(std::string_view s);

/// Returns whether `op`'s state allows `cmd` at `now`. A retry is refused
/// once the operation's deadline has passed: its new run would fail at
/// once.
bool allows(const operation& op, command cmd, time_point now);

/// Returns the `errc::invalid_state` error that refuses `cmd` for `op` at
/// `now`, naming the operation, its state and the states that allow `cmd`
/// (or the deadline that passed).
caf::error refusal(const operation& op, command cmd, time_point now);

/// Returns the `errc::invalid_state` error that refuses a signal for an
/// operation that has ended.
caf::error signal_refusal(const operation& op);

/// Returns whether `op` stored a signal with id `signal_id` (never for an
/// empty id).
bool has_signal(const operation& op, const std::string& signal_id);

} // namespace stepwise
