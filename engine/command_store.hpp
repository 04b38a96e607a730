#pragma once

#include <cstddef>
#include <cstdint>
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
};

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

  /// Stores `cmd` and wakes the operation's owner. A signal whose
  /// `signal_id` (not empty) is stored already for the operation, in this
  /// table, is not stored again: returns false.
  [[nodiscard]] virtual caf::expected<bool> put(const stored_command& cmd) = 0;

  /// Returns up to `limit` commands for operations `owner` drives, by seq.
  [[nodiscard]] virtual caf::expected<std::vector<stored_command>> for_owner(
    const std::string& owner, size_t limit) = 0;

  /// Deletes the command `seq` (none: nothing to do).
  [[nodiscard]] virtual caf::error drop(int64_t seq) = 0;
};

} // namespace stepwise
