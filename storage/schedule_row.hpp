#pragma once

#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "engine/schedule.hpp"

/// A schedule as every backend stores it: the `schedules` table holds its
/// id, its revision (for the writes' revision checks) and this JSON text of
/// the whole schedule (times and durations in microseconds).
namespace stepwise::codec {

std::string encode_schedule(const schedule& s);

/// Parses what `encode_schedule` wrote; fails with `errc::store_failure`
/// naming the field.
[[nodiscard]] caf::expected<schedule> decode_schedule(std::string_view text);

} // namespace stepwise::codec
