#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "engine/errc.hpp"
#include "engine/event.hpp"
#include "engine/time.hpp"

namespace stepwise {

/// An event of the log with the workflow of its operation, which sinks
/// filter on. Events do not store their workflow: the read looks it up, so
/// the engine's commits write nothing more than before.
struct routed_event {
  event ev;
  /// Empty when the operation is not (or no longer) stored.
  std::string workflow;
};

/// Where a sink that is not stored yet starts in the log.
enum class sink_start : uint8_t {
  /// Before the first event: it delivers the whole log.
  beginning,
  /// After the last event written so far: it delivers what comes next.
  end,
};

/// A sink's durable state.
struct sink_record {
  std::string name;
  /// Every event with `seq <= cursor` was acknowledged (or filtered out).
  int64_t cursor = 0;
  /// The process delivering the sink; empty when nobody holds it.
  std::string holder;
  /// When the holder's lease ends (by the store's clock); none without one.
  std::optional<time_point> lease_expires_at;
  /// When the cursor last moved.
  std::optional<time_point> delivered_at;
  /// The last failed delivery's error; empty after a success.
  std::string last_error;
  /// When the last failure was recorded.
  std::optional<time_point> failed_at;
};

/// What the holder of a sink records.
struct sink_progress {
  /// The new cursor; a value below the stored one leaves it.
  int64_t cursor = 0;
  /// None: the stored error stays; empty: the last attempt succeeded;
  /// otherwise the failure (never holding a secret).
  std::optional<std::string> error;
};

/// Durable cursors of the outbox's sinks, and a lease per sink so that
/// processes sharing one database deliver each sink from one process at a
/// time. A store that supports sinks implements this next to `store` and
/// returns it from `store::sinks()`.
///
/// Model: one row per sink name, created by the first `acquire_sink`. The
/// cursor only moves forward. A holder keeps its lease by calling
/// `update_sink` (each call renews it for `ttl`); a lease that ran out may
/// be taken by another process, whose `acquire_sink` returns the cursor to
/// resume from, and the old holder's next `update_sink` fails. Lease times
/// follow the store's clock (the database's, for a shared store).
///
/// Writes here are cheap on purpose (SQLite: no fsync of their own): a
/// lost cursor write means some events are delivered again, never lost.
///
/// Threading: thread-safe; every call may block, so never call it on a CAF
/// scheduler thread.
class sink_store {
public:
  virtual ~sink_store() = default;

  /// Returns up to `limit` events with `seq > after`, oldest first, each
  /// with its operation's workflow.
  [[nodiscard]] virtual caf::expected<std::vector<routed_event>> routed_events_after(
    int64_t after, size_t limit) = 0;

  /// Takes or renews the lease on sink `name` for `holder`, for `ttl`;
  /// creates the sink at `start` when it is new. Granted when nobody holds
  /// the sink, `holder` already does, the lease ran out, or `steal` is set
  /// (a store serving one process: any other holder is a dead predecessor
  /// of this process). Returns the cursor when granted, none when another
  /// holder's lease runs.
  [[nodiscard]] virtual caf::expected<std::optional<int64_t>> acquire_sink(
    const std::string& name, const std::string& holder, duration ttl, sink_start start,
    bool steal) = 0;

  /// Records `p` and renews the lease for `ttl`, when `holder` still holds
  /// the sink; else fails with `errc::stale_revision` ("sink lease lost")
  /// and writes nothing.
  [[nodiscard]] virtual caf::error update_sink(const std::string& name, const std::string& holder,
                                               duration ttl, const sink_progress& p) = 0;

  /// Ends `holder`'s lease on `name`, if it holds it, so that another
  /// process may take the sink at once (shutdown).
  [[nodiscard]] virtual caf::error release_sink(const std::string& name,
                                                const std::string& holder) = 0;

  /// Returns every stored sink, by name.
  [[nodiscard]] virtual caf::expected<std::vector<sink_record>> sink_records() = 0;
};

/// Returns the error `update_sink` reports when the lease is gone.
inline caf::error sink_lease_lost(const std::string& name) {
  return make_error(errc::stale_revision,
                    "sink '" + name + "': lease lost (another process holds it)");
}

} // namespace stepwise
