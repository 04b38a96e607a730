#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace stepwise::bench {

/// Returns user+system CPU seconds of this process so far.
double cpu_seconds();

/// Returns this process's peak resident set (VmHWM) in KiB.
int64_t peak_rss_kib();

/// Returns this process's current resident set (VmRSS) in KiB.
int64_t rss_kib();

/// Returns the number in field `field` of `/proc/PID/status` (`Threads`,
/// `VmHWM`, `VmRSS` in KiB) of process `pid` (0: this one); 0 when absent.
int64_t status_of(int pid, const std::string& field);

/// Resets the peak resident set (VmHWM) of process `pid` (0: this one) to
/// its current one (`/proc/PID/clear_refs`), so that a run in a process that
/// ran before reads its own peak. Returns false when the kernel refused.
bool reset_peak_rss(int pid);

/// Returns the CPU seconds of process `pid`'s (0: this one) live threads so
/// far, summed by thread name (`sw-driver`, `sw-writer`, CAF's workers...):
/// where a process's CPU goes, without a profiler. Threads that exited are
/// not counted.
std::map<std::string, double> thread_cpu_seconds(int pid);

/// Returns the machine's load average over the last minute (-1 unknown).
double load_average();

/// Returns the CPU seconds (user + system) of process `root` and its
/// children so far, counting children that exited too (through the
/// root's cutime/cstime): e.g. a PostgreSQL postmaster and its backends.
/// Returns 0 when `root` does not exist.
double tree_cpu_seconds(int root);

} // namespace stepwise::bench
