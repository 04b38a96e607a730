#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "engine/engine.hpp"
#include "outbox/outbox.hpp"

namespace stepwise::bench {

/// The sinks attached to a run (`--sink`, as on the server): starts the
/// built-in targets the specs name, `@receiver` (a local webhook receiver
/// that acknowledges every POST at once) and `@kafka-mock` (librdkafka's
/// mock cluster, topic `completions`), then the outbox, and measures each
/// sink: delivery throughput and the lag from an event's commit to its
/// acknowledgement.
///
/// Lifecycle: `make` before the run, `start` once the engine runs,
/// `finish` after it, `stop` before the engine's shutdown.
class sink_bench {
public:
  /// `targets_down`: for this long after `start` the built-in receiver
  /// answers 503 and the mock cluster's broker is down (a sink whose
  /// destination is down during the run).
  [[nodiscard]] static caf::expected<std::unique_ptr<sink_bench>> make(
    const std::vector<std::string>& specs,
    std::chrono::milliseconds targets_down = std::chrono::milliseconds{0});

  ~sink_bench();

  /// Starts the outbox on `eng`.
  [[nodiscard]] caf::error start(caf::actor_system& sys, engine& eng, store_ptr st);

  /// Waits (at most `limit_s`) until every sink delivered the whole log;
  /// returns one object per sink: `{name, kind, events, events_per_s,
  /// caught_up_s, lag_ms: {p50, p99, max}, failed}`, throughput and catch-up
  /// counted from `started_at_us` (the run's start); a sink that had
  /// delivered nothing when the run ended also gets `resumed_s` (its first
  /// delivery) and `backlog_events_per_s` (from then to caught up).
  boost::json::array finish(int64_t started_at_us, double limit_s);

  /// Stops the outbox and the targets.
  void stop();

  struct targets;

private:
  sink_bench() = default;

  std::vector<outbox::sink_config> sinks_;
  std::unique_ptr<targets> targets_;
  std::unique_ptr<outbox::outbox> outbox_;
};

} // namespace stepwise::bench
