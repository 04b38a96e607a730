#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/log.hpp"

namespace stepwise::tools {

/// Severity of a log line; lines below the configured level are dropped.
using stepwise::log_level;

/// Returns the level named `s` (`error`, `warn`, `info`, `debug`).
std::optional<log_level> parse_log_level(std::string_view s);

/// Sets the lowest level that is written.
void set_log_level(log_level x);

/// Returns whether lines of level `x` are written.
bool log_enabled(log_level x);

/// Writes one line to stderr: time, level, text. Thread-safe.
void log(log_level x, std::string_view text);

} // namespace stepwise::tools
