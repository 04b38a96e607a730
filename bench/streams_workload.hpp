#pragma once

#include "bench/cli_options.hpp"

namespace stepwise::bench {

/// The `streams` workload, against a running `stepwise serve --workflows
/// bench` (`--url http://IPv4:PORT`): opens `streams` event streams and
/// `stalled` clients that send half a request head and stall (each opened
/// again when the server cuts it off), all on one thread; then starts `n`
/// one-step operations (`bench_one`) at `rate` a second through `POST
/// /api/v1/operations` while another client asks `/readyz` ten times a
/// second. Prints one JSON line: POST and `/readyz` latency (p50, p99,
/// max), how many streams were admitted and how many got every event of
/// the log after their start, in order, how often the server cut a stalled
/// client off, and the server's CPU and peak memory (from its `/metrics`).
int run_streams(const cli_options& o);

} // namespace stepwise::bench
