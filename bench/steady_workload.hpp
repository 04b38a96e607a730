#pragma once

#include "bench/cli_options.hpp"

namespace stepwise::bench {

/// The `steady` workload (disk space under retention): W1 operations (five trivial steps)
/// started at `rate` a second for `duration_s` seconds into an embedded
/// engine with `retention` on, the store's size read every `sample_s`.
/// Prints a JSON line per sample (`store_bytes`, operations kept and
/// removed so far) and one at the end: whether the disk space stays flat
/// once retention removes as much as is written.
int run_steady(const cli_options& o);

} // namespace stepwise::bench
