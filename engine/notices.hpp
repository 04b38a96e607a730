#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "engine/time.hpp"

namespace stepwise {

/// A notification between processes sharing a store (PostgreSQL NOTIFY):
/// a wake-up, never the only way news travels (a process also looks on
/// its own, more slowly).
struct notice {
  std::string channel;
  std::string payload;
};

/// What one wait for notifications brought.
struct notices {
  std::vector<notice> items;
  /// The listening connection was opened again: notifications sent while
  /// it was down are lost, so the caller looks for what they would have
  /// said.
  bool reconnected = false;
};

/// One listening connection on a shared store, for one thread.
class notice_listener {
public:
  virtual ~notice_listener() = default;

  /// Waits up to `timeout` for notifications on the channels it listens
  /// to; returns those that came (none when the time passed). Fails when
  /// the connection failed (it connects again on the next call, which then
  /// says `reconnected`). Blocks: never on a CAF scheduler thread.
  [[nodiscard]] virtual caf::expected<notices> wait(duration timeout) = 0;
};

/// The channel of stored commands (engine/command_store.hpp); the
/// payload is the owner the command is for.
inline constexpr const char* commands_channel = "stepwise_commands";

/// The channel of committed events: each commit that wrote events says
/// "FIRST LAST", their seqs (engine::on_shared_events).
inline constexpr const char* events_channel = "stepwise_events";

/// The channel of changes to the spread of work: a process joined, left,
/// or gave operations up (`lease_store::release_operations`); the payload
/// is the process that did. Every other process looks at its share at
/// once instead of at its next lease tick.
inline constexpr const char* balance_channel = "stepwise_balance";
/// The channel of schedule writes (client requests, fires): the payload is
/// the process that wrote. The others' schedule keepers read the schedules
/// at once instead of at their next refresh.
inline constexpr const char* schedules_channel = "stepwise_schedules";
/// The channel of workflows defined as data, put or deleted: the payload
/// is the workflow's name. Every process reads the definitions again.
inline constexpr const char* workflows_channel = "stepwise_workflows";

} // namespace stepwise
