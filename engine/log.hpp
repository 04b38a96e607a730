#pragma once

#include <functional>
#include <string_view>

namespace stepwise {

/// Severity of a log line.
enum class log_level { error, warn, info, debug };

/// Where the engine writes what it has to say outside of events: store
/// faults and their recovery, dropped late results, launch warnings. A
/// server passes its own logger so every line has its format; null writes
/// `stepwise: TEXT` to stderr.
using log_sink = std::function<void(log_level, std::string_view)>;

/// Writes `text` to `sink`, or to stderr when `sink` is null.
void write_log(const log_sink& sink, log_level x, std::string_view text);

} // namespace stepwise
