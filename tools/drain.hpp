#pragma once

#include <chrono>

#include "engine/engine.hpp"

namespace stepwise::tools {

/// The graceful part of a stop (SIGTERM): `eng` takes no new operations and
/// begins no new attempt (`engine::drain`; `/readyz` answers 503 from now
/// on, so that a load balancer moves away), and the running attempts get
/// up to `timeout` to finish and have their results queued for writing.
/// Returns how many were still running at the timeout (0: drained); those
/// are left to the next start, as after a crash. Runs on the thread that
/// handles signals, never on a CAF scheduler thread.
int64_t drain(engine& eng, std::chrono::seconds timeout);

} // namespace stepwise::tools
