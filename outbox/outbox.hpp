#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "engine/engine.hpp"
#include "engine/sink_store.hpp"
#include "net/http_client.hpp"
#include "outbox/blocking_pool.hpp"
#include "outbox/sink_actor.hpp"
#include "outbox/sink_config.hpp"
#include "outbox/sink_stats.hpp"
#include "outbox/sink_status.hpp"

namespace stepwise::outbox {

/// Everything the outbox is started with.
struct outbox_config {
  std::vector<sink_config> sinks;
  sink_timing timing;
  /// Threads for store calls and producer rebuilds, shared by all sinks.
  size_t store_threads = 2;
  /// The webhooks' HTTP client (TLS verification, CA file, connections).
  net::http_client_options http;
  /// Where warnings go (never holding a secret); empty: stderr.
  std::function<void(const std::string&)> warn;
  /// Keep every delivery's lag for exact percentiles (the benchmark); the
  /// memory grows with the events delivered.
  bool keep_lags = false;
};

/// The outbox: delivers the committed events of the log to each sink, at
/// least once, in log order, from the sink's durable cursor (see
/// outbox/README.md).
///
/// Lifecycle: `start` after the engine (it subscribes to the engine's
/// committed events as a wake-up and uses its clock), `stop` before the
/// engine's shutdown. `stop` and `status` block: call them from threads
/// outside CAF (the main thread, HTTP workers).
class outbox {
public:
  /// Reads the sinks' secret files, makes their destinations and spawns
  /// one actor per sink. Fails when the store keeps no sink cursors, a sink
  /// name repeats, a secret file cannot be read, or a Kafka setting is
  /// wrong; errors never hold a secret.
  [[nodiscard]] static caf::expected<std::unique_ptr<outbox>> start(caf::actor_system& sys,
                                                                    engine& eng, store_ptr st,
                                                                    outbox_config cfg);

  /// Stops (see `stop`).
  ~outbox();

  outbox(const outbox&) = delete;
  outbox& operator=(const outbox&) = delete;

  /// Stops the sinks (each writes its cursor and releases its lease, for
  /// at most a few seconds), then the destinations and the pool.
  /// Idempotent.
  void stop();

  /// Returns every configured sink's status, reading the store.
  [[nodiscard]] caf::expected<std::vector<sink_status>> status() const;

  /// Returns this process's counters of each sink, by name.
  std::vector<std::pair<std::string, std::shared_ptr<const sink_stats>>> stats() const;

  /// Returns this process's id in the sinks' leases.
  const std::string& holder() const {
    return holder_;
  }

private:
  struct sink {
    sink_config cfg;
    std::shared_ptr<destination> dest;
    std::shared_ptr<sink_stats> stats;
    sink_actor actor;
  };

  outbox(caf::actor_system& sys, store_ptr st, sink_store* sinks);

  caf::actor_system& sys_;
  store_ptr store_;
  sink_store* sinks_;
  std::string holder_;
  std::shared_ptr<blocking_pool> pool_;
  std::shared_ptr<net::http_client> http_;
  std::vector<sink> items_;
  event_listener feeder_;
  std::function<void(const std::string&)> warn_;
  bool stopped_ = false;
};

} // namespace stepwise::outbox
