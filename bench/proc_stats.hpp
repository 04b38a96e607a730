#pragma once

#include <cstdint>

namespace stepwise::bench {

/// Returns user+system CPU seconds of this process so far.
double cpu_seconds();

/// Returns this process's peak resident set (VmHWM) in KiB.
int64_t peak_rss_kib();

/// Returns this process's current resident set (VmRSS) in KiB.
int64_t rss_kib();

} // namespace stepwise::bench
