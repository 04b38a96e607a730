#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include <boost/json/value.hpp>
#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "engine/commands.hpp"
#include "engine/time.hpp"

namespace stepwise {

/// A control request for an operation that another process drives,
/// stored for its owner to carry out.
struct stored_command {
  /// Set by the store: the order of commands, and their id.
  int64_t seq = 0;
  std::string operation_id;
  /// False: a command (`cmd`); true: a signal (`signal_name`...).
  bool is_signal = false;
  command cmd = command::cancel;
  std::string signal_name;
  std::string signal_id;
  boost::json::value payload;
  time_point created_at;
  /// Who asked (see `event::by`).
  std::string by{};
};

/// What became of a stored command, as the store tells the process that
/// stored it (a notification on `applied_channel`).
enum class command_outcome : uint8_t {
  /// Carried out: the operation's checkpoint deleted it.
  applied,
  /// Refused by the state its owner found.
  refused,
  /// A signal whose id the operation had already.
  repeat,
};

std::string_view to_string(command_outcome x);

std::optional<command_outcome> parse_command_outcome(std::string_view s);

/// The channel on which the store tells what became of stored commands:
/// the payload is `OUTCOME SEQ[,SEQ...]`.
inline constexpr const char* applied_channel = "stepwise_applied";

/// Control requests between processes sharing a store: a process that
/// gets a request for an operation another one drives stores it here, in
/// its own transaction, and the owner of the operation (whoever that is
/// by then: it may have died and been taken over) carries it out. The
/// owner's checkpoint that carries a command out deletes it
/// (`checkpoint::consumed_command`), so a command takes effect once
/// however often its owner changes; one that changes nothing (refused by
/// the state the owner finds, or a repeated signal) is deleted by `drop`.
///
/// Threading: thread-safe; every call blocks on the store.
class command_store {
public:
  virtual ~command_store() = default;

  /// Stores `cmd` and wakes the operation's owner; returns its seq. A
  /// signal whose `signal_id` (not empty) is stored already for the
  /// operation, in this table, is not stored again: returns 0.
  [[nodiscard]] virtual caf::expected<int64_t> put(const stored_command& cmd) = 0;

  /// Returns up to `limit` commands for operations `owner` drives, by seq.
  [[nodiscard]] virtual caf::expected<std::vector<stored_command>> for_owner(
    const std::string& owner, size_t limit) = 0;

  /// Deletes the command `seq`, which changed nothing (`why`), and tells
  /// so on `applied_channel` (none: nothing to do).
  [[nodiscard]] virtual caf::error drop(int64_t seq, command_outcome why) = 0;
};

} // namespace stepwise
