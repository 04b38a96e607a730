#pragma once

#include "bench/cli_options.hpp"

namespace stepwise::bench {

/// The `children` workload: one parent whose first step starts N trivial
/// child operations (one step each; at most `--limit` of them, 500 by
/// default, in progress at once) and whose second waits for all of them.
/// Measures a fan-out and its join: wall time from the parent's start to
/// its end, CPU, memory. Runs `o.runs` times, one JSON line each; returns
/// 0, 1 when a run could not start, 3 when the parent did not succeed
/// within the limit (its line is printed all the same).
int run_children(const cli_options& o);

} // namespace stepwise::bench
