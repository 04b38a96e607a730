#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/io_workload.hpp"
#include "engine/config.hpp"
#include "engine/time.hpp"

namespace stepwise::bench {

/// What `stepwise-bench`'s command line asks for.
struct cli_options {
  std::string workload = "steps";
  size_t n = 1000;
  int runs = 1;
  std::string via = "embedded";
  std::string store;
  std::string url = "http://127.0.0.1:8080";
  /// --via http: bearer token (--token, STEPWISE_TOKEN).
  std::string token;
  size_t pool = 4;
  double limit_s = 300;
  int64_t passivate_ms = 1000;
  int64_t wake_lead_ms = 500;
  /// engine_config::dispatch_lead.
  int64_t dispatch_lead_ms = 50;
  /// `--steps inline`: the trivial steps run on the operations' actors
  /// (`running_inline`) rather than on the worker pool.
  bool inline_steps = false;
  /// Embedded: at most this many creates unanswered (0: all at once).
  size_t window = 0;
  size_t create_window = engine_config{}.create_window;
  /// Embedded W1: ended operations written into the store before the run,
  /// and the operation list timed after it (steady as history grows).
  size_t prefill = 0;
  /// Embedded steps and `steady`: engine_config::retention and its batch.
  duration retention = duration::zero();
  size_t retention_batch = 100;
  /// `steady`: how often the store's size is read, in seconds.
  double sample_s = 30;
  /// `timers`: the durable sleep, in seconds (W3: 1).
  double sleep_s = 1;
  /// `children`: most children in progress at once (the child workflow's
  /// limit).
  size_t child_limit = 500;
  /// --via http: connections submitting at once.
  size_t concurrency = 64;
  /// The store server's main process (PostgreSQL's postmaster): its CPU,
  /// with its children's, is reported as `cpu_s.store`.
  int store_pid = 0;
  /// Wall-clock ms since the epoch at which the run starts (after start-up),
  /// so that several processes on one store run together (bench/pg-multi).
  int64_t start_at_ms = 0;
  /// Sinks attached during the run (`--sink`, as on the server; `@receiver`
  /// and `@kafka-mock` name the built-in targets).
  std::vector<std::string> sinks;
  /// The built-in targets are down for this long from the run's start.
  double targets_down_s = 0;
  /// `schedules`: each schedule's period, how long the run fires, and
  /// whether every schedule fires at the same instant (else their offsets
  /// spread them over the period).
  int64_t every_s = 10;
  double duration_s = 120;
  bool aligned = false;
  /// `streams`: event streams and clients stalled mid-header held open,
  /// and the rate of the operations started meanwhile (a second).
  size_t streams = 1000;
  size_t stalled = 0;
  double rate = 20;
  /// `tasks`: worker connections, and idle long polls held open.
  size_t task_workers = 32;
  size_t pollers = 10000;
  /// The `io` workload (bench/io_workload.hpp) and the driver process.
  bool url_given = false;
  io_options io;
  bool serve_driver = false;
  bool help = false;
  std::string listen = "127.0.0.1:8090";
};

/// Prints the usage after `why` (to stderr, returning 2), or alone for
/// --help (to stdout, returning 0).
int usage(const char* why);

/// Reads the command line into `o`; false with `err` on a bad one.
bool parse(int argc, char** argv, cli_options& o, std::string& err);

} // namespace stepwise::bench
