#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "engine/event.hpp"
#include "engine/operation.hpp"

namespace stepwise {

/// A request to start an operation.
struct start_request {
  std::string workflow;
  /// Empty: the newest registered version.
  std::optional<int32_t> version;
  boost::json::object input;
  /// Same key and same request again: the same operation; different
  /// request: `errc::idempotency_conflict`.
  std::string idempotency_key;
  std::optional<time_point> deadline;
};

/// The answer to a start request.
struct start_result {
  operation op;
  /// False when an idempotency key replayed an existing operation.
  bool created = true;
};

/// A batch of committed events, pushed to subscribers in log order.
struct event_batch {
  std::vector<event> events;
};

} // namespace stepwise
