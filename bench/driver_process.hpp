#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace stepwise::bench {

/// How `stepwise-bench --serve-driver` runs.
struct driver_process_options {
  std::string listen = "127.0.0.1:8090";
  /// Every call answers this long after it arrived (a cloud API's round
  /// trip).
  int64_t call_ms = 200;
  /// HTTP threads: each call holds one for `call_ms`, so this many calls
  /// can be under way at once.
  size_t threads = 512;
};

/// Serves the Ignition Infrastructure API (`POST
/// /api/infrastructure/create|delete|query|find`, bodies as
/// infra/ignition_json.hpp encodes them) on the simulated cloud
/// (`infra::sim_driver`), every call answered `call_ms` after it arrived,
/// and `GET /stats`: the calls served so far by kind and the most under
/// way at once. The external driver of the `io` workload over HTTP. Runs
/// until SIGINT or SIGTERM; returns the exit code.
int serve_driver(const driver_process_options& o);

} // namespace stepwise::bench
