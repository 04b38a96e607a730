#include "tools/serve_options.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>

#include "engine/errc.hpp"
#include "storage/open_store.hpp"
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
    return "must be an integer from " + std::to_string(Lo) + " to "
           + std::to_string(Hi) + ", not '" + v + "'";
  o.*Field = *n;
  return std::nullopt;
}

template <int64_t serve_options::*Field, size_t Lo, size_t Hi>
std::optional<std::string> set_seconds(serve_options& o, const std::string& v) {
  auto n = to_size(v);
  if (!n || *n < Lo || *n > Hi)
    return "must be a number of seconds from " + std::to_string(Lo) + " to "
           + std::to_string(Hi) + ", not '" + v + "'";
  o.*Field = static_cast<int64_t>(*n);
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

std::optional<std::string> set_config(serve_options& o, const std::string& v) {
  o.config_file = v;
  return std::nullopt;
}

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

std::optional<std::string> set_sim_failure_rate(serve_options& o,
                                                const std::string& v) {
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

std::optional<std::string> set_sink(serve_options& o, const std::string& v) {
  return add_sinks(o.sinks, v);
}

const option_spec engine_specs[] = {
  {"listen", "STEPWISE_LISTEN", "HOST:PORT",
   "address to serve HTTP on (default 127.0.0.1:8080; port 0: any free port)",
   set_listen},
  {"store", "STEPWISE_STORE", "URI",
   "sqlite:PATH or postgresql://... (default sqlite:./stepwise.db)",
   set_store},
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
   "simulated cloud: probability from 0 to 1 that a task fails (default 0)",
   set_sim_failure_rate},
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
   "HTTP worker threads (default 64); each open keep-alive connection, long "
   "poll and event stream holds one",
   set_size<&serve_options::http_threads, 2, 4096>},
  {"step-workers", "STEPWISE_STEP_WORKERS", "N",
   "threads that run step functions (default 4)",
   set_size<&serve_options::step_workers, 1, 1024>},
  {"read-workers", "STEPWISE_READ_WORKERS", "N",
   "threads that read operations not in memory (default 2)",
   set_size<&serve_options::read_workers, 1, 256>},
  {"scheduler-threads", "STEPWISE_SCHEDULER_THREADS", "N",
   "CAF scheduler threads (default 0: one per core)",
   set_size<&serve_options::scheduler_threads, 0, 256>},
  {"log-level", "STEPWISE_LOG_LEVEL", "LEVEL",
   "error, warn, info (default) or debug (debug logs every request)",
   set_level},
  {"max-body", "STEPWISE_MAX_BODY", "BYTES",
   "largest request body accepted (default 1048576; 413 above)",
   set_size<&serve_options::max_body, 1024, 1 << 30>},
  {"max-streams", "STEPWISE_MAX_STREAMS", "N",
   "long polls and event streams open at once (default 16; keep below "
   "--http-threads)",
   set_size<&serve_options::max_streams, 1, 4096>},
  {"request-timeout", "STEPWISE_REQUEST_TIMEOUT", "SECONDS",
   "how long a request waits for the engine (default 30; 503 after)",
   set_seconds<&serve_options::request_timeout_s, 1, 3600>},
  {"io-timeout", "STEPWISE_IO_TIMEOUT", "SECONDS",
   "a client that sends or takes nothing for this long is dropped (default "
   "10)",
   set_seconds<&serve_options::io_timeout_s, 1, 3600>},
  {"lease-ttl", "STEPWISE_LEASE_TTL", "SECONDS",
   "PostgreSQL store shared by several processes: a process that stops "
   "renewing its lease for this long loses its operations to the others "
   "(default 10)",
   set_seconds<&serve_options::lease_ttl_s, 1, 3600>},
  {"sink", "STEPWISE_SINKS", "SPEC",
   "deliver the event log to NAME=webhook:URL[,secret-file=PATH][,batch=N] or "
   "NAME=kafka:BROKERS/TOPIC[,sasl-password-file=PATH], each [,events=T|...]"
   "[,workflows=W|...][,timeout-ms=N][,from=start|end] (repeatable; the variable "
   "takes several, ';'-separated; every option: tools/README.md)",
   set_sink},
};

// Every setting: the engine's, then the front doors'.
const std::vector<option_spec>& specs() {
  static const std::vector<option_spec> all = [] {
    std::vector<option_spec> out(std::begin(engine_specs), std::end(engine_specs));
    auto& more = front_door_specs();
    out.insert(out.end(), more.begin(), more.end());
    return out;
  }();
  return all;
}

const option_spec* find_spec(const std::string& name) {
  for (auto& s : specs())
    if (name == s.name)
      return &s;
  return nullptr;
}

caf::error bad(std::string what) {
  return make_error(errc::invalid_argument, std::move(what));
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos)
    return {};
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

caf::expected<void> read_file(serve_options& o, const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return bad("cannot read config file '" + path + "'");
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    auto text = trim(line.substr(0, line.find('#')));
    if (text.empty())
      continue;
    auto eq = text.find('=');
    auto where = path + ":" + std::to_string(no) + ": ";
    if (eq == std::string::npos)
      return bad(where + "expected 'name = value'");
    auto name = trim(text.substr(0, eq));
    auto spec = find_spec(name);
    if (spec == nullptr || spec->set == &set_config)
      return bad(where + "unknown setting '" + name + "'");
    if (auto err = spec->set(o, trim(text.substr(eq + 1))))
      return bad(where + name + " " + *err);
  }
  return caf::unit;
}

} // namespace

std::string serve_options::host() const {
  auto h = listen.substr(0, listen.rfind(':'));
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']')
    h = h.substr(1, h.size() - 2);
  return h;
}

int serve_options::port() const {
  return std::atoi(listen.substr(listen.rfind(':') + 1).c_str());
}

http::server_config serve_options::server_config() const {
  http::server_config c;
  c.host = host();
  c.port = port();
  c.threads = http_threads;
  c.lim.max_body_bytes = max_body;
  c.lim.max_streams = max_streams;
  c.read_timeout = std::chrono::seconds(io_timeout_s);
  c.write_timeout = std::chrono::seconds(io_timeout_s);
  c.metrics_auth = metrics_auth;
  c.tls_cert = tls_cert;
  c.tls_key = tls_key;
  return c;
}

stepwise::engine_config serve_options::engine_config() const {
  stepwise::engine_config c;
  c.store_uri = store;
  c.step_workers = step_workers;
  c.read_workers = read_workers;
  c.request_timeout = std::chrono::seconds(request_timeout_s);
  c.lease_ttl = std::chrono::seconds(lease_ttl_s);
  c.limits = limits;
  return c;
}

env_reader process_env() {
  return [](const char* name) -> std::optional<std::string> {
    if (auto v = std::getenv(name))
      return std::string(v);
    return std::nullopt;
  };
}

caf::expected<serve_options>
parse_serve_options(const std::vector<std::string>& args, const env_reader& env) {
  // Split the flags first: the config file they may name is read before the
  // environment and the flags are applied over it.
  std::vector<std::pair<const option_spec*, std::string>> flags;
  serve_options o;
  for (size_t i = 0; i < args.size(); ++i) {
    auto& a = args[i];
    if (a == "-h" || a == "--help") {
      o.help = true;
      return o;
    }
    if (a.rfind("--", 0) != 0)
      return bad("unexpected argument '" + a + "' (see stepwise serve --help)");
    auto eq = a.find('=');
    auto name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    auto spec = find_spec(name);
    if (spec == nullptr)
      return bad("unknown flag '--" + name + "' (see stepwise serve --help)");
    std::string value;
    if (eq != std::string::npos)
      value = a.substr(eq + 1);
    else if (spec->is_switch)
      value = "true";
    else if (i + 1 < args.size())
      value = args[++i];
    else
      return bad("flag '--" + name + "' needs a value (" + spec->arg + ")");
    flags.emplace_back(spec, value);
  }
  std::string file;
  if (auto v = env("STEPWISE_CONFIG"))
    file = *v;
  for (auto& [spec, value] : flags)
    if (spec->set == &set_config)
      file = value;
  if (!file.empty()) {
    if (auto ok = read_file(o, file); !ok)
      return ok.error();
    o.config_file = file;
  }
  for (auto& spec : specs()) {
    if (spec.set == &set_config)
      continue;
    if (auto v = env(spec.env)) {
      if (spec.set == &set_sink)
        o.sinks.clear(); // a repeatable setting: the file's are replaced
      if (auto err = spec.set(o, *v))
        return bad(std::string(spec.env) + " " + *err);
    }
  }
  for (auto& [spec, value] : flags)
    if (spec->set == &set_sink)
      o.sinks.clear();
  for (auto& [spec, value] : flags)
    if (auto err = spec->set(o, value))
      return bad("--" + std::string(spec->name) + " " + *err);
  if (auto err = check_front_doors(o))
    return bad(*err);
  return o;
}

std::string serve_help() {
  std::string out =
    "usage: stepwise serve [FLAGS]\n\n"
    "Runs the workflow engine with its HTTP API (registers the 'demo' "
    "workflow).\nStops on SIGTERM or SIGINT: stops accepting, lets requests "
    "in flight finish,\nwrites pending checkpoints and exits 0; a restart "
    "resumes every operation.\n\n"
    "Each flag can also be set by its environment variable or in the config "
    "file;\nflags win over the environment, which wins over the file.\n\n";
  for (auto& s : specs()) {
    auto left = std::string("  --") + s.name + (s.is_switch ? "" : " ") + s.arg;
    out += left + "\n      " + s.help + "\n      env: " + s.env + "\n";
  }
  return out;
}

std::string redact_uri(const std::string& uri) {
  return redact_store_uri(uri);
}

} // namespace stepwise::tools
