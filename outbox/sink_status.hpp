#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/time.hpp"

namespace stepwise::outbox {

/// One sink as `GET /api/v1/sinks` shows it: the stored cursor and lease,
/// with this process's own figures where it holds the sink. Holds no
/// secret.
struct sink_status {
  std::string name;
  /// `webhook` or `kafka`.
  std::string kind;
  /// Where it delivers, without credentials (see `describe_destination`).
  std::string destination;
  /// The filter: event types and workflows (empty: all).
  std::vector<std::string> events;
  std::vector<std::string> workflows;
  /// Every event up to it is delivered (or filtered out).
  int64_t cursor = 0;
  /// Events of the log after the cursor.
  int64_t lag = 0;
  /// Events this process delivered, and failed to, since it started.
  uint64_t delivered = 0;
  uint64_t failed = 0;
  /// The last delivery error; empty once a delivery succeeded again.
  std::string last_error;
  std::optional<time_point> last_delivery_at;
  /// The process delivering the sink (`host:pid:random`); empty: none.
  std::string holder;
  /// Whether that is this process.
  bool held_here = false;
  /// Seconds from an event's time to its acknowledgement, over this
  /// process's deliveries: `lag_counts[i]` lags up to `lag_bounds[i]`, the
  /// last count above every bound.
  std::vector<double> lag_bounds;
  std::vector<uint64_t> lag_counts;
  double lag_sum_s = 0;
};

} // namespace stepwise::outbox
