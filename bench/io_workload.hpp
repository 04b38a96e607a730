#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include <boost/json.hpp>

#include "bench/embedded_driver.hpp"

namespace stepwise::bench {

/// The `io` workload: N `provision_runtime` operations, each a driver
/// create and a monitor poll that finds the task COMPLETE (2 driver calls),
/// every call taking `call_ms`. Measures what waiting on the outside world
/// costs: wall time, threads, memory, CPU.
struct io_options {
  size_t n = 1000;
  int runs = 1;
  /// `embedded` (the engine in this process on the simulated driver) or
  /// `http` (a `stepwise serve` on an external driver process).
  std::string via = "embedded";
  int64_t call_ms = 200;
  double limit_s = 300;
  /// Embedded: the store (empty: a fresh SQLite file in /tmp per run).
  std::string store;
  /// HTTP: connections submitting at once.
  size_t concurrency = 64;
  /// HTTP: a running server (empty: start `server_bin serve` per run on a
  /// fresh SQLite file, with only --driver, --listen and --store set).
  std::string url;
  /// Bearer token of that server (empty: none).
  std::string token;
  /// HTTP, with `url`: the server's process, for its CPU, memory and
  /// threads (0: not sampled).
  int server_pid = 0;
  /// HTTP: the `stepwise` binary to start (empty: the one next to this
  /// executable).
  std::string server_bin;
  /// HTTP, a server started here: its `--driver-connections` (0: its
  /// default).
  size_t driver_connections = 0;
  /// Set by the bench: `server_bin` is the server of this build.
  bool server_bin_is_ours = false;
  /// HTTP: a running driver process (empty: start `stepwise-bench
  /// --serve-driver` on a free port for the invocation).
  std::string driver_url;
};

/// Returns the input of operation `i`: a template that completes at once.
boost::json::object io_input(size_t i);

/// Returns the fields every `io` line has (the bench's common format plus
/// the load average at the start and the end of the run).
boost::json::object io_line(const io_options& o, int run, const run_result& res,
                            double load_before);

/// Returns the CPU seconds each thread name used between two readings of
/// `thread_cpu_seconds` (names under 10 ms left out).
boost::json::object thread_cpu_delta(const std::map<std::string, double>& before,
                                     const std::map<std::string, double>& after);

/// Runs the workload `o.runs` times, one JSON line per run on stdout.
/// Returns the exit code: 0, 1 when a run could not start, 3 when an
/// operation did not succeed within the limit (its line is printed all
/// the same).
int run_io_embedded(const io_options& o);
int run_io_http(const io_options& o);

} // namespace stepwise::bench
