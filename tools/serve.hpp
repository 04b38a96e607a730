#pragma once

#include "tools/serve_options.hpp"

namespace stepwise::tools {

/// Runs `stepwise serve` until SIGTERM or SIGINT. Returns the exit code: 0
/// after a graceful shutdown, 1 when start-up failed.
int run_serve(const serve_options& opts);

} // namespace stepwise::tools
