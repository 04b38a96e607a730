// The engine's settings of `stepwise serve` (store, threads, timeouts, the
// simulated cloud, sinks, limits): how each is parsed and described. The
// front doors' are in front_door_options.cpp; serve_options.cpp reads them
// all from flags, the environment and the config file.
#include <charconv>
#include <cstdlib>

#include "engine/errc.hpp"
#include "storage/open_store.hpp"
#include "engine/duration_text.hpp"
#include "tools/option_spec.hpp"
#include "tools/sink_option.hpp"

namespace stepwise::tools {

namespace {

std::optional<size_t> to_size(const std::string& s) {
  if (s.empty() || s.size() > 12)
    return std::nullopt;
  size_t v = 0;
  for (auto c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  return v;
}

template <size_t serve_options::*Field, size_t Lo, size_t Hi>
std::optional<std::string> set_size(serve_options& o, const std::string& v) {
  auto n = to_size(v);
  if (!n || *n < Lo || *n > Hi)
    return "must be an integer from " + std::to_string(Lo) + " to " + std::to_string(Hi) + ", not '"
           + v + "'";
  o.*Field = *n;
  return std::nullopt;
}

template <int64_t serve_options::*Field, size_t Lo, size_t Hi>
std::optional<std::string> set_seconds(serve_options& o, const std::string& v) {
  auto n = to_size(v);
  if (!n || *n < Lo || *n > Hi)
    return "must be a number of seconds from " + std::to_string(Lo) + " to " + std::to_string(Hi)
           + ", not '" + v + "'";
  o.*Field = static_cast<int64_t>(*n);
  return std::nullopt;
}

std::optional<std::string> set_retention(serve_options& o, const std::string& v) {
  if (v == "0") {
    o.retention = duration::zero();
    return std::nullopt;
  }
  auto d = parse_duration_text(v);
  if (!d || *d < std::chrono::seconds(1))
    return "must be a duration of at least 1s (30d, 12h, 90m) or 0 to keep everything, not '" + v
           + "'";
  o.retention = *d;
  return std::nullopt;
}

std::optional<std::string> set_listen(serve_options& o, const std::string& v) {
  auto colon = v.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return "must be HOST:PORT, not '" + v + "'";
  auto port = to_size(v.substr(colon + 1));
  if (!port || *port > 65535)
    return "has an invalid port in '" + v + "' (0 to 65535)";
  o.listen = v;
  return std::nullopt;
}

std::optional<std::string> set_store(serve_options& o, const std::string& v) {
  if (v.rfind("sqlite:", 0) != 0 && v.rfind("postgresql://", 0) != 0
      && v.rfind("postgres://", 0) != 0)
    return "must be sqlite:PATH or postgresql://..., not '" + redact_uri(v) + "'";
  o.store = v;
  return std::nullopt;
}

std::optional<std::string> set_advertise(serve_options& o, const std::string& v) {
  if ((v.rfind("http://", 0) != 0 && v.rfind("https://", 0) != 0) || v.size() < 9)
    return "must be an http:// or https:// URL, not '" + v + "'";
  o.advertise_url = v;
  return std::nullopt;
}

} // namespace

std::optional<std::string> set_config(serve_options& o, const std::string& v) {
  o.config_file = v;
  return std::nullopt;
}

namespace {

std::optional<std::string> set_level(serve_options& o, const std::string& v) {
  auto x = parse_log_level(v);
  if (!x)
    return "must be error, warn, info or debug, not '" + v + "'";
  o.level = *x;
  return std::nullopt;
}

std::optional<std::string> set_workflows(serve_options& o, const std::string& v) {
  auto sets = split_list(v);
  if (!sets)
    return "must list demo and/or bench, not '" + v + "'";
  for (auto& item : *sets)
    if (item != "demo" && item != "bench")
      return "must list demo and/or bench, not '" + item + "'";
  o.workflow_sets = std::move(*sets);
  return std::nullopt;
}

std::optional<std::string> set_limits(serve_options& o, const std::string& v) {
  auto items = split_list(v);
  if (!items)
    return "must be NAME=N[,NAME=N...], not '" + v + "'";
  for (auto& item : *items) {
    auto eq = item.find('=');
    size_t n = 0;
    auto digits = eq == std::string::npos ? std::string{} : item.substr(eq + 1);
    auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (eq == 0 || eq == std::string::npos || digits.empty() || parsed.ec != std::errc{}
        || parsed.ptr != digits.data() + digits.size() || n < 1 || n > 1000000)
      return "takes WORKFLOW=N with N from 1 to 1000000, not '" + item + "'";
    o.limits[item.substr(0, eq)] = n;
  }
  return std::nullopt;
}

std::optional<std::string> set_driver(serve_options& o, const std::string& v) {
  // The URL is not quoted back: it may carry credentials.
  if (v != "sim" && v.rfind("http://", 0) != 0 && v.rfind("https://", 0) != 0)
    return std::string("must be sim or http[s]://HOST[:PORT][/PREFIX]");
  o.driver = v;
  return std::nullopt;
}

std::optional<std::string> set_sim_latency(serve_options& o, const std::string& v) {
  auto colon = v.find(':');
  auto lo = to_size(v.substr(0, colon));
  auto hi = colon == std::string::npos ? lo : to_size(v.substr(colon + 1));
  constexpr size_t max_ms = 3600 * 1000;
  if (!lo || !hi || *lo > *hi || *hi > max_ms)
    return "must be MIN or MIN:MAX milliseconds (0 to " + std::to_string(max_ms)
           + ", MIN <= MAX), not '" + v + "'";
  o.sim_latency_min_ms = static_cast<int64_t>(*lo);
  o.sim_latency_max_ms = static_cast<int64_t>(*hi);
  return std::nullopt;
}

std::optional<std::string> set_sim_failure_rate(serve_options& o, const std::string& v) {
  char* end = nullptr;
  auto x = v.empty() ? -1.0 : std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !(x >= 0.0 && x <= 1.0))
    return "must be a number from 0 to 1, not '" + v + "'";
  o.sim_failure_rate = x;
  return std::nullopt;
}

std::optional<std::string> set_sim_seed(serve_options& o, const std::string& v) {
  auto n = to_size(v);
  if (!n)
    return "must be an integer from 0 to 999999999999, not '" + v + "'";
  o.sim_seed = static_cast<uint64_t>(*n);
  return std::nullopt;
}

} // namespace

std::optional<std::string> set_sink(serve_options& o, const std::string& v) {
  return add_sinks(o.sinks, v);
}

namespace {

const option_spec engine_table[] = {
  {"listen", "STEPWISE_LISTEN", "HOST:PORT",
   "address to serve HTTP on (default 127.0.0.1:8080; port 0: any free port)", set_listen},
  {"store", "STEPWISE_STORE", "URI",
   "sqlite:PATH or postgresql://... (default sqlite:./stepwise.db)", set_store},
  {"advertise-url", "STEPWISE_ADVERTISE_URL", "URL",
   "where clients reach this server, as GET /api/v1/cluster shows it to the "
   "others sharing its store (default http[s]://HOST:PORT of --listen, with this "
   "host's name for 0.0.0.0 or ::)",
   set_advertise},
  {"config", "STEPWISE_CONFIG", "FILE",
   "read settings from FILE: one 'name = value' per line, names as the flags "
   "without '--', '#' starts a comment",
   set_config},
  {"workflows", "STEPWISE_WORKFLOWS", "LIST",
   "built-in workflows to register: demo (default), bench (the steps, retry "
   "and timers workloads of stepwise-bench --via http), or demo,bench",
   set_workflows},
  {"limit", "STEPWISE_LIMITS", "WORKFLOW=N",
   "run at most N operations of WORKFLOW at once; the rest wait as pending, in "
   "creation order (repeatable; the variable takes a=1,b=2)",
   set_limits},
  {"driver", "STEPWISE_DRIVER", "sim|URL",
   "infrastructure driver behind /api/infrastructure: sim (default, the "
   "simulated cloud) or the http[s]://HOST[:PORT][/PREFIX] of an external "
   "driver serving the Ignition Infrastructure API (PREFIX defaults to "
   "/api/infrastructure)",
   set_driver},
  {"sim-latency-ms", "STEPWISE_SIM_LATENCY_MS", "MIN[:MAX]",
   "simulated cloud: how long each task takes, uniformly from MIN to MAX "
   "milliseconds (default 100:1000)",
   set_sim_latency},
  {"sim-failure-rate", "STEPWISE_SIM_FAILURE_RATE", "R",
   "simulated cloud: probability from 0 to 1 that a task fails (default 0)", set_sim_failure_rate},
  {"sim-seed", "STEPWISE_SIM_SEED", "S",
   "simulated cloud: seed of its random choices; the same seed replays the "
   "same run (default 1)",
   set_sim_seed},
  {"sim-call-ms", "STEPWISE_SIM_CALL_MS", "MS",
   "simulated cloud: how long each call takes to answer, like a cloud API's "
   "round trip (default 0)",
   set_size<&serve_options::sim_call_ms, 0, 600000>},
  {"driver-connections", "STEPWISE_DRIVER_CONNECTIONS", "N",
   "HTTP driver: most connections to it at once; calls beyond wait their turn, "
   "holding no thread (default 128)",
   set_size<&serve_options::driver_connections, 1, 65536>},
  {"monitor-rate", "STEPWISE_MONITOR_RATE", "N",
   "most task polls the monitor sends the driver in any second (default 10000; "
   "cloud APIs limit their callers)",
   set_size<&serve_options::monitor_rate, 1, 1000000>},
  {"http-threads", "STEPWISE_HTTP_THREADS", "N",
   "HTTP worker threads that run requests (default 128); idle connections, "
   "long polls and event streams hold none",
   set_size<&serve_options::http_threads, 2, 4096>},
  {"io-threads", "STEPWISE_IO_THREADS", "N",
   "threads that do the network I/O of every HTTP connection (default: half the "
   "cores, at least 1)",
   set_size<&serve_options::io_threads, 1, 64>},
  {"step-workers", "STEPWISE_STEP_WORKERS", "N", "threads that run step functions (default 4)",
   set_size<&serve_options::step_workers, 1, 1024>},
  {"read-workers", "STEPWISE_READ_WORKERS", "N",
   "threads that read operations not in memory (default 2)",
   set_size<&serve_options::read_workers, 1, 256>},
  {"scheduler-threads", "STEPWISE_SCHEDULER_THREADS", "N",
   "CAF scheduler threads (default 0: one per core, at least 2)",
   set_size<&serve_options::scheduler_threads, 0, 256>},
  {"log-level", "STEPWISE_LOG_LEVEL", "LEVEL",
   "error, warn, info (default) or debug (debug logs every request)", set_level},
  {"max-body", "STEPWISE_MAX_BODY", "BYTES",
   "largest request body accepted (default 1048576; 413 above)",
   set_size<&serve_options::max_body, 1024, 1 << 30>},
  {"max-streams", "STEPWISE_MAX_STREAMS", "N",
   "long polls and event streams open at once (default 1024; 503 "
   "too_many_waiters beyond); each holds a connection, no thread",
   set_size<&serve_options::max_streams, 1, 1000000>},
  {"max-streams-per-token", "STEPWISE_MAX_STREAMS_PER_TOKEN", "N",
   "with --auth-tokens: long polls and event streams one token may keep open "
   "at once (default 256; 503 too_many_waiters beyond)",
   set_size<&serve_options::max_streams_per_token, 1, 1000000>},
  {"commit-linger-ms", "STEPWISE_COMMIT_LINGER_MS", "MS",
   "under load, how long a small commit waits for more checkpoints (default 5; "
   "0: commit at once; a lone operation never waits)",
   set_size<&serve_options::commit_linger_ms, 0, 1000>},
  {"request-timeout", "STEPWISE_REQUEST_TIMEOUT", "SECONDS",
   "how long a request waits for the engine (default 30; 503 after)",
   set_seconds<&serve_options::request_timeout_s, 1, 3600>},
  {"max-backlog", "STEPWISE_MAX_BACKLOG", "N",
   "checkpoints waiting for a slow store before new operations are refused "
   "(503 overloaded; default 100000, 0: no bound)",
   set_size<&serve_options::max_backlog, 0, 100000000>},
  {"io-timeout", "STEPWISE_IO_TIMEOUT", "SECONDS",
   "a request's head must arrive within this long of its first byte, its "
   "body within as long again, and each answer be taken within it; a slower "
   "client is dropped (default 10)",
   set_seconds<&serve_options::io_timeout_s, 1, 3600>},
  {"lease-ttl", "STEPWISE_LEASE_TTL", "SECONDS",
   "PostgreSQL store shared by several processes: a process that stops "
   "renewing its lease for this long loses its operations to the others "
   "(default 10)",
   set_seconds<&serve_options::lease_ttl_s, 1, 3600>},
  {"drain-timeout", "STEPWISE_DRAIN_TIMEOUT", "SECONDS",
   "after SIGTERM: new operations get 503 shutting_down and /readyz 503 at once, "
   "running attempts get this long to finish and be written (default 30; 0: none); "
   "those still running are left to the next start, as after a crash",
   set_seconds<&serve_options::drain_timeout_s, 0, 3600>},
  {"retention", "STEPWISE_RETENTION", "DURATION",
   "operations that ended longer ago than this are removed with their events, in "
   "small paced batches in the background (default 30d; 0 keeps everything); "
   "never what lives or what a live operation or a sink still needs",
   set_retention},
  {"retention-batch", "STEPWISE_RETENTION_BATCH", "N",
   "most operations retention removes in one store transaction (default 100)",
   set_size<&serve_options::retention_batch, 1, 100000>},
  {"sink", "STEPWISE_SINKS", "SPEC",
   "deliver the event log to NAME=webhook:URL[,secret-file=PATH][,batch=N] or "
   "NAME=kafka:BROKERS/TOPIC[,sasl-password-file=PATH], each [,events=T|...]"
   "[,workflows=W|...][,timeout-ms=N][,from=start|end] (repeatable; the variable "
   "takes several, ';'-separated; every option: tools/README.md)",
   set_sink},
};

} // namespace

const std::vector<option_spec>& engine_specs() {
  static const std::vector<option_spec> all(std::begin(engine_table), std::end(engine_table));
  return all;
}

} // namespace stepwise::tools
