#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/operation.hpp"

namespace stepwise {

/// The channel of child operations that ended, for the processes that
/// drive their parents: a wake-up, as every notice (the parent's wait
/// also reads its children every `engine_config::children_poll`).
inline constexpr const char* child_ended_channel = "stepwise_child_ended";

/// What a notice on `child_ended_channel` says.
struct child_ended_notice {
  /// The process whose commit ended the child (empty: none said).
  std::string owner;
  std::string parent;
  op_state state = op_state::succeeded;
  /// The child's idempotency key: which step of the parent made it.
  std::string child_key;
};

/// Returns the payload for `child` (ended, with a parent) ended by
/// `owner`: "OWNER PARENT STATE KEY", the key last as it may hold spaces.
std::string child_ended_payload(const std::string& owner, const operation& child);

/// Reads a payload `child_ended_payload` made; none when malformed.
std::optional<child_ended_notice> parse_child_ended(std::string_view payload);

} // namespace stepwise
