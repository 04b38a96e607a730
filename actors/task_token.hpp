#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace stepwise {

/// What a task token names: one attempt of an operation's task step, and
/// the hand-out of it to one worker (`nonce`). Written
/// `<operation id>.<attempt>.<nonce>`: the broker tells whether an answer
/// is for the current attempt, and for the worker that holds it.
struct task_token {
  std::string id;
  int32_t attempt = 0;
  std::string nonce;
};

std::string to_string(const task_token& t);

/// Returns the parts of `text`, or none when it is not a token.
std::optional<task_token> parse_task_token(const std::string& text);

} // namespace stepwise
