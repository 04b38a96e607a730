#pragma once

#include "bench/cli_options.hpp"

namespace stepwise::bench {

/// The `schedules` workload: N schedules, each firing every `every_s`
/// seconds (spread over the period by their offsets, or all at once with
/// `aligned`), each fire a one-step operation, for `duration_s` seconds.
/// Prints one JSON line: fire lateness (from the fire time to the moment
/// its operation's creation is committed and seen by a subscriber), fires
/// missed and doubled, threads at idle and at most during the run, and
/// memory with the schedules idle and at the peak.
int run_schedules(const cli_options& o);

} // namespace stepwise::bench
