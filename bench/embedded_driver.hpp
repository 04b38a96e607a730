#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace stepwise::bench {

/// What one run measured.
struct run_result {
  size_t completed = 0;
  size_t errors = 0;
  double wall_s = 0;
  /// Submit-to-finished latency per completed operation, in ms.
  std::vector<double> latency_ms;
  /// Ids of the operations that finished, for reading their results.
  std::vector<std::string> ids;
  /// Most operations sleeping or with a timer armed at once.
  int64_t peak_timers = 0;
  /// Resident memory (KiB) when the most operations were sleeping.
  int64_t rss_at_peak_kib = 0;
  double cpu_s = 0;
  /// CPU seconds of the store's server over the run (0 when not sampled).
  double store_cpu_s = 0;
  /// The run window on the wall clock (µs since the epoch), so that runs of
  /// several processes can be merged.
  int64_t started_at_us = 0;
  int64_t ended_at_us = 0;
};

/// Returns the input of operation `i` of a run; it must keep `"i": i`, by
/// which the driver matches answers to submits.
using input_fn = std::function<boost::json::object(size_t i)>;

/// Submits `n` operations of `workflow` at once through the embedding API
/// (asynchronous requests to the dispatcher) and waits, at most
/// `limit_s` seconds, until each has finished, as seen in the event stream.
/// `store_cpu`, when given, returns the store server's CPU seconds so far;
/// it is sampled at both ends of the run. `input` defaults to `{"i": i}`.
run_result run_embedded(caf::actor_system& sys, engine& eng, const std::string& workflow, size_t n,
                        double limit_s, const std::function<double()>& store_cpu = {},
                        const input_fn& input = {}, size_t window = 0);

} // namespace stepwise::bench
