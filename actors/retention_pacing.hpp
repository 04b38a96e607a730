#pragma once

#include <cstddef>

#include "engine/config.hpp"
#include "engine/time.hpp"

namespace stepwise {

/// How the retention keeper paces its removal (actors/retention_keeper.hpp):
/// a pass starts every `retention_period`; within a pass a full batch is
/// followed by `retention_pause`, four times what the batch took (at least
/// `retention_min_pause`, at most `retention_max_pause`), so that removal
/// holds the store's write side for at most a fifth of the time and the
/// live work's commits go between batches. The most: one batch that waited
/// for a slow flush (seconds, on PostgreSQL under load) must not stop
/// removal for four times as long while operations end faster than it.

/// The shortest pause between two batches of one pass.
constexpr duration retention_min_pause = std::chrono::milliseconds(10);

/// The longest pause between two batches of one pass.
constexpr duration retention_max_pause = std::chrono::seconds(1);

/// Returns how often a retention pass starts with `cfg`.
duration retention_period(const engine_config& cfg);

/// Returns the most operations one batch removes with `cfg` (at least 1).
size_t retention_batch_size(const engine_config& cfg);

/// Returns the pause after a full batch that took `took`.
duration retention_pause(duration took);

} // namespace stepwise
