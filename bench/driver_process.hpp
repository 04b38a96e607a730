#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace stepwise::bench {

/// Serves the Ignition Infrastructure API (`POST
/// /api/infrastructure/create|delete|query|find`, bodies as
/// infra/ignition_json.hpp encodes them) on `listen` (`HOST:PORT`) from the
/// simulated cloud (`infra::sim_driver`), every call answered `call_ms`
/// after it arrived (a cloud API's round trip), and `GET /stats`: the calls
/// served so far by kind and the most under way at once. Each call holds
/// one of `threads` HTTP threads while it waits, so that many can be under
/// way at once. The external driver of the `io` workload over HTTP. Runs
/// until SIGINT or SIGTERM; returns the exit code.
int serve_driver(const std::string& listen, int64_t call_ms, size_t threads = 512);

} // namespace stepwise::bench
