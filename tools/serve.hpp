#pragma once

#include "tools/host.hpp"
#include "tools/serve_options.hpp"

namespace stepwise::tools {

/// Runs the server `opts` describe, with `host`'s additions, until SIGTERM
/// or SIGINT (see `stepwise::serve`, tools/host.hpp).
int run_serve(const serve_options& opts, const serve_host& host);

} // namespace stepwise::tools
