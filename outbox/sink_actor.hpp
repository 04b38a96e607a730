#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "engine/clock.hpp"
#include "engine/sink_store.hpp"
#include "engine/store.hpp"
#include "outbox/blocking_pool.hpp"
#include "outbox/destination.hpp"
#include "outbox/messages.hpp"
#include "outbox/sink_config.hpp"
#include "outbox/sink_stats.hpp"

namespace stepwise::outbox {

/// How a sink paces itself.
struct sink_timing {
  /// The sink's lease in a shared store; renewed every `lease_ttl / 3`.
  duration lease_ttl = std::chrono::seconds(10);
  /// How often the sink reads the store without a wake-up (events other
  /// processes committed) and tries to take a sink another process holds.
  duration poll = std::chrono::seconds(1);
  /// While events keep coming (for `busy_for` after a read found some), the
  /// store is polled every `busy_poll` as well: the engine's wake-ups can
  /// lag behind a burst of requests.
  duration busy_poll = std::chrono::milliseconds(20);
  duration busy_for = std::chrono::seconds(1);
  /// Least time between two cursor writes while events keep coming; an
  /// idle sink writes its cursor at once.
  duration cursor_interval = std::chrono::milliseconds(100);
  /// Retry delays after a failed delivery: doubling from `backoff_initial`
  /// up to `backoff_max`, with up to 20 % jitter.
  duration backoff_initial = std::chrono::milliseconds(200);
  duration backoff_max = std::chrono::seconds(30);
  /// Most events read from the store at once.
  size_t read_batch = 1000;
};

/// Everything one sink's actor works with. Shared, read-only.
struct sink_context {
  sink_config cfg;
  std::shared_ptr<destination> dest;
  store_ptr st;
  /// `st` as a sink store.
  sink_store* sinks = nullptr;
  std::shared_ptr<blocking_pool> pool;
  /// The engine's clock (timers, lags, lease pacing); outlives the actor.
  stepwise::clock* clock = nullptr;
  /// This process in the sink's lease.
  std::string holder;
  /// A store serving one process: take the sink whoever held it before.
  bool steal = false;
  sink_timing timing;
  std::shared_ptr<sink_stats> stats;
  /// Secrets of this sink, scrubbed from every message it logs or stores.
  std::vector<std::string> secrets;
  /// Where warnings go (delivery failing or recovering, store errors).
  std::function<void(const std::string&)> warn;
};

/// Spawns the actor that delivers one sink: it takes the sink's lease,
/// reads the log from the sink's cursor, hands batches to the destination,
/// moves the cursor as they are acknowledged and retries failures with
/// backoff. Blocking store calls run on `ctx->pool`; timers on the
/// engine's clock.
///
/// Its protocol (`sink_actor`): `(ob_wake_atom, seq)` says events up to
/// `seq` are committed; `(ob_stop_atom)` writes the cursor, releases the
/// lease and answers true (then the actor quits).
sink_actor spawn_sink(caf::actor_system& sys, std::shared_ptr<const sink_context> ctx);

} // namespace stepwise::outbox
