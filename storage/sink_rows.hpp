#pragma once

#include <caf/expected.hpp>

#include "engine/sink_store.hpp"
#include "storage/column_reader.hpp"
#include "storage/event_row.hpp"

/// The columns of an event read for a sink: the event's, then its
/// operation's workflow, looked up per row through the operations' primary
/// key (so that commits need not store it with every event).
#define STEPWISE_ROUTED_EVENT_COLUMNS                                                              \
  STEPWISE_EVENT_COLUMNS ", (SELECT o.workflow FROM operations o "                                 \
                         "WHERE o.id = events.operation_id)"

/// The columns of `sink_cursors` in the order `read_sink_record` reads.
#define STEPWISE_SINK_COLUMNS                                                                      \
  "name, cursor, holder, lease_expires_at, delivered_at, last_error, "                             \
  "failed_at"

namespace stepwise {

/// Returns the event at `cols`, selected as `STEPWISE_ROUTED_EVENT_COLUMNS`.
[[nodiscard]] caf::expected<routed_event> read_routed_event(const column_reader& cols);

/// Returns the sink at `cols`, selected as `STEPWISE_SINK_COLUMNS`.
[[nodiscard]] sink_record read_sink_record(const column_reader& cols);

} // namespace stepwise
