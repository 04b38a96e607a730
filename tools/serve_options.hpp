#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <caf/expected.hpp>

#include "engine/config.hpp"
#include "http/server.hpp"
#include "outbox/sink_config.hpp"
#include "tools/log.hpp"

namespace stepwise::tools {

/// Everything `stepwise serve` can be told. Each setting has a flag
/// (`--http-threads 128`), an environment variable (`STEPWISE_HTTP_THREADS`)
/// and a config file key (`http-threads = 128`); flags win over the
/// environment, which wins over the file, which wins over the defaults.
struct serve_options {
  std::string listen = "127.0.0.1:8080";
  std::string store = "sqlite:./stepwise.db";
  std::string config_file;
  size_t http_threads = 128;
  size_t step_workers = 4;
  size_t read_workers = 2;
  size_t max_backlog = 100000;
  /// 0: tune_actor_system's (one per core, at least two).
  size_t scheduler_threads = 0;
  log_level level = log_level::info;
  size_t max_body = 1 << 20;
  size_t max_streams = 1024;
  size_t max_streams_per_token = 256;
  /// Half the cores, at least one: the engine's threads need the rest
  /// (on 2 cores a second I/O thread cost more in switches than it did).
  size_t io_threads = std::max(1U, std::thread::hardware_concurrency() / 2);
  int64_t request_timeout_s = 30;
  size_t commit_linger_ms = 5;
  int64_t io_timeout_s = 10;
  /// PostgreSQL shared by several processes: the lease period.
  int64_t lease_ttl_s = 10;
  /// After SIGTERM: how long running attempts may take to finish.
  int64_t drain_timeout_s = 30;
  /// Operations ended longer ago are removed in the background (0: kept).
  duration retention = std::chrono::hours(24 * 30);
  /// Most operations retention removes per store transaction.
  size_t retention_batch = 100;
  /// Concurrency limits per workflow name (`--limit NAME=N`, repeatable).
  std::map<std::string, size_t> limits;
  /// Built-in workflow sets to register: `demo`, `bench`.
  std::vector<std::string> workflow_sets{"demo"};
  /// The infrastructure driver behind `/api/infrastructure`: `sim` (the
  /// simulated cloud) or the `http[s]://` URL of an external driver that
  /// serves the Ignition Infrastructure API.
  std::string driver = "sim";
  /// Empty: made from `listen` (`advertised_url`).
  std::string advertise_url;
  /// Simulated cloud: each task takes from `sim_latency_min_ms` to
  /// `sim_latency_max_ms`, fails with probability `sim_failure_rate`, and
  /// every random choice follows `sim_seed` (same seed, same run).
  int64_t sim_latency_min_ms = 100;
  int64_t sim_latency_max_ms = 1000;
  double sim_failure_rate = 0.0;
  uint64_t sim_seed = 1;
  /// Simulated cloud: how long each call takes to answer.
  size_t sim_call_ms = 0;
  /// HTTP driver: most connections at once.
  size_t driver_connections = 128;
  /// The monitor's cap on polls per second.
  size_t monitor_rate = 10000;
  /// The outbox's sinks (`--sink`, repeatable; `STEPWISE_SINKS` holds several
  /// separated by `;`; one `sink = ...` line each in the file). Flags replace
  /// the environment's sinks, which replace the file's.
  std::vector<outbox::sink_config> sinks;
  /// Simulated cloud: the deployment locations it serves.
  std::vector<std::string> sim_locations{"default", "dc1"};
  /// The bearer token file (`role name token` lines); empty: no tokens,
  /// which is allowed on a loopback address only (see check_exposure).
  std::string auth_tokens;
  /// `/metrics` needs a read token too.
  bool metrics_auth = false;
  /// Serve without tokens on any address.
  bool insecure_no_auth = false;
  /// HTTPS: the certificate chain and private key (PEM files).
  std::string tls_cert;
  std::string tls_key;
  /// Mount the Open Service Broker API on `/v2/`, guarded by the
  /// `user:password` of `osb_credentials`.
  bool osb = false;
  std::string osb_credentials;
  /// The key ring that seals secret values (`ID BASE64` lines, the first
  /// seals). Empty: a SQLite store's key file beside the database
  /// (`key_file.hpp`); a PostgreSQL store refuses to start.
  std::string secret_key_file;
  /// Store secret values unsealed (no key ring).
  bool insecure_plaintext_secrets = false;
  bool help = false;

  /// Returns where clients reach this server: `advertise_url`, else made
  /// from `listen` (empty when its port is 0: not known yet).
  std::string advertised_url() const;

  /// Returns the host part of `listen`.
  std::string host() const;

  /// Returns the port part of `listen`.
  int port() const;

  /// Returns the HTTP server configuration these options describe.
  stepwise::http::server_config server_config() const;

  /// Returns the engine configuration these options describe.
  stepwise::engine_config engine_config() const;
};

/// Reads an environment variable (injectable for tests).
using env_reader = std::function<std::optional<std::string>(const char*)>;

/// Returns the real environment.
env_reader process_env();

/// Parses the arguments after `serve`, the environment and the config file.
/// Errors name the flag, variable or file line that is wrong.
[[nodiscard]] caf::expected<serve_options> parse_serve_options(const std::vector<std::string>& args,
                                                               const env_reader& env);

/// Returns the `--help` text of `stepwise serve`.
std::string serve_help();

/// Returns why the server must not start with these options: listening
/// on an address other than loopback without tokens (and without
/// `--insecure-no-auth`); the message says how to add tokens.
std::optional<std::string> check_exposure(const serve_options& o);

/// Returns `uri` with any password replaced by `***`, for printing.
std::string redact_uri(const std::string& uri);

} // namespace stepwise::tools
