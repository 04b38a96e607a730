#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/time.hpp"

namespace stepwise {

/// Parses a duration written as numbers with units, largest first:
/// `500ms`, `30s`, `5m`, `2h`, `1d`, `1h30m`. None when it is not one.
std::optional<duration> parse_duration_text(std::string_view text);

/// Writes `d` (to the millisecond) as `parse_duration_text` reads it, in
/// the largest units that are exact: `90s` is `1m30s`, zero is `0s`.
std::string format_duration_text(duration d);

} // namespace stepwise
