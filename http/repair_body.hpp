#pragma once

#include <optional>
#include <string_view>

#include "engine/commands.hpp"
#include "http/errors.hpp"

/// The bodies of the repair commands, each error a 400 naming the field.
/// What only the operation can check (a step it does not have, whether its
/// state allows the command) is the engine's to answer.
namespace stepwise::http {

/// Decodes the optional body of `POST .../retry`: empty, or
/// `{input?: object (a merge patch), from_step?: string}`.
std::optional<api_error> decode_retry(std::string_view body, size_t max_depth,
                                      command_request& out);

/// Decodes the body of `POST .../skip`: `{step: string, reason: string}`.
std::optional<api_error> decode_skip(std::string_view body, size_t max_depth, command_request& out);

} // namespace stepwise::http
