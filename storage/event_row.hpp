#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "engine/event.hpp"
#include "storage/column_reader.hpp"

/// The columns of the `events` table an insert writes (the store assigns
/// `seq`), in the order of `event_row` after its `seq`.
#define STEPWISE_EVENT_INSERT_COLUMNS "time, operation_id, type, step, attempt, state, error, extra"

/// The columns of the `events` table in the order of `event_row`: every
/// backend selects them in this order.
#define STEPWISE_EVENT_COLUMNS "seq, " STEPWISE_EVENT_INSERT_COLUMNS

namespace stepwise {

/// An event as every SQL backend stores it: one member per column of
/// `STEPWISE_EVENT_COLUMNS`, in that order (see `op_row` for the views).
struct event_row {
  /// Set by reads only: the store assigns it on insert.
  int64_t seq = 0;
  /// Microseconds since the Unix epoch.
  int64_t time = 0;
  std::string_view operation_id;
  /// `to_string(event_type)`.
  std::string_view type;
  std::string_view step;
  int32_t attempt = 0;
  std::string_view state;
  std::string_view error;
  /// JSON object; NULL when the event has no extra fields, as most have.
  std::optional<std::string_view> extra;
};

/// Returns the row of `ev`; `extra_buf` holds the JSON of `extra` (reused
/// from event to event, see `op_row_buffers`).
[[nodiscard]] event_row encode_event_row(const event& ev, std::string& extra_buf);

/// Returns the row at `cols`, selected as `STEPWISE_EVENT_COLUMNS`.
[[nodiscard]] event_row read_event_row(const column_reader& cols);

/// Returns the event stored as `row`; a malformed column is an
/// `errc::store_failure` naming the event and column.
[[nodiscard]] caf::expected<event> decode_event_row(const event_row& row);

/// Returns the event at `cols`, selected as `STEPWISE_EVENT_COLUMNS`.
[[nodiscard]] inline caf::expected<event> read_event(const column_reader& cols) {
  return decode_event_row(read_event_row(cols));
}

} // namespace stepwise
