#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stepwise {

/// Durations are kept in microseconds: fine enough to measure timer lateness.
using duration = std::chrono::microseconds;

/// Wall-clock time. Due times are stored as wall-clock so they survive restarts.
using time_point = std::chrono::time_point<std::chrono::system_clock, duration>;

/// Returns `t` as microseconds since the Unix epoch (the stored form).
inline int64_t to_micros(time_point t) {
  return t.time_since_epoch().count();
}

/// Returns the time `us` microseconds after the Unix epoch.
inline time_point from_micros(int64_t us) {
  return time_point{duration{us}};
}

/// Returns `t` as RFC 3339 UTC with milliseconds, e.g. `2026-11-22T07:40:00.123Z`.
std::string format_time(time_point t);

/// Parses an RFC 3339 time (`Z` or a numeric offset; fraction optional).
std::optional<time_point> parse_time(std::string_view text);

} // namespace stepwise
