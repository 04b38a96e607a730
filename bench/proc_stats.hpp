#pragma once

#include <cstdint>

namespace stepwise::bench {

/// Returns user+system CPU seconds of this process so far.
double cpu_seconds();

/// Returns this process's peak resident set (VmHWM) in KiB.
int64_t peak_rss_kib();

/// Returns this process's current resident set (VmRSS) in KiB.
int64_t rss_kib();

/// Returns the CPU seconds (user + system) of process `root` and its
/// children so far, counting children that exited too (through the
/// root's cutime/cstime): e.g. a PostgreSQL postmaster and its backends.
/// Returns 0 when `root` does not exist.
double tree_cpu_seconds(int root);

} // namespace stepwise::bench
