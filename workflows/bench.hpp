#pragma once

#include <string>

#include "engine/registry.hpp"
#include "engine/time.hpp"

namespace stepwise::workflows {

/// The benchmark workloads (bench/README.md) as workflows: `steps` (5 durable
/// steps), `retry` (step 3 fails once with retry-after 100 ms and records
/// its lateness), `timers` (step, durable 1 s sleep, step). Each step
/// returns `{op, step, t}` into the operation's data (t: wall-clock µs).
/// `sleepers` (step, 1 h sleep, step) measures what a sleeping operation
/// costs: a run ends when all of them sleep. Each is registered twice:
/// `bench_steps` runs its steps on the engine's workers, `bench_steps_inline`
/// on the operations' actors (`running_inline`: trivial steps). `timers`
/// sleeps `timer_sleep` (W3: 1 s; longer, to have many asleep at once).
registry bench_workflows(duration timer_sleep = std::chrono::seconds(1));

/// Returns the workflow name of a workload, or empty if unknown.
std::string bench_workflow_of(const std::string& workload, bool inline_steps = false);

} // namespace stepwise::workflows
