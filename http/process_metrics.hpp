#pragma once

#include "http/prometheus.hpp"

namespace stepwise::http {

/// Appends the standard `process_*` families (CPU seconds, resident and
/// virtual memory, open file descriptors, start time) and the peak resident
/// memory of this process to `out`, read from /proc and getrusage.
void render_process_metrics(prometheus_writer& out);

} // namespace stepwise::http
