#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/event.hpp"
#include "http/errors.hpp"
#include "http/query.hpp"

namespace stepwise::http {

/// The events a reader of the log asked for (`?type=a,b`): every event when
/// it named no type. A reader waiting for operations to end takes one frame
/// per operation instead of a dozen.
struct event_filter {
  /// Bit `t` set: events of type `t` are wanted.
  uint32_t types = ~uint32_t{0};

  bool wants(const event& e) const {
    return ((types >> static_cast<unsigned>(e.type)) & 1U) != 0;
  }

  /// Drops the unwanted events of `items`.
  void keep_wanted(std::vector<event>& items) const;
};

/// Reads the query's `type`: event type names separated by commas. Returns
/// the 400 naming an unknown one, or none.
std::optional<api_error> read_event_filter(const query& q, event_filter& out);

} // namespace stepwise::http
