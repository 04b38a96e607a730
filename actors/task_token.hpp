#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/time.hpp"

namespace stepwise {

/// What a task token names: one attempt of an operation's task step, and
/// the hand-out of it to one worker (`nonce`). Written
/// `<operation id>.<attempt>.<nonce>`: the broker tells whether an answer
/// is for the current attempt, and for the worker that holds it. The nonce
/// begins with the step, when the attempt began and the step's run
/// (`attempt_mark`): the next step's attempt, or a run after a retry or a
/// repair (attempts count afresh), has the same number, and a token of
/// theirs must not pass for this one's (a broker after a restart knows no
/// nonce, only the attempt's stored start).
struct task_token {
  std::string id;
  int32_t attempt = 0;
  std::string nonce;
};

std::string to_string(const task_token& t);

/// Returns the nonce's first part for an attempt of `step` that began at
/// `since` (milliseconds, as the store keeps it) in the step's run `run`.
std::string attempt_mark(time_point since, const std::string& step, int32_t run);

/// Returns whether `t` names the attempt of `step` that began at `since`
/// in run `run`.
bool names_attempt(const task_token& t, time_point since, const std::string& step, int32_t run);

/// Returns the parts of `text`, or none when it is not a token.
std::optional<task_token> parse_task_token(const std::string& text);

} // namespace stepwise
