#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "engine/engine.hpp"

namespace stepwise::http {

/// Returns the seq of the newest event (0 for an empty log), found with
/// about 2 log2(seq) one-event reads: the engine has no call for it.
caf::expected<int64_t> last_event_seq(engine& eng);

/// The events of one operation, found by scanning the log.
struct operation_events {
  std::vector<event> items;
  /// False when the scan stopped at its bound before the operation's last
  /// possible event: older or newer events may be missing.
  bool complete = true;
  /// The seq of the newest event in the log when the scan ended: a
  /// client's event stream continues after it.
  int64_t last_seq = 0;
};

/// Returns the events of `op`, oldest first: the log has no index by
/// operation, so this finds by bisection the first event written shortly
/// before the operation was created, then reads forward until its last
/// update (or the end), at most `max_scanned` events and `max_items` of the
/// operation's.
caf::expected<operation_events> events_of(engine& eng, const operation& op, size_t max_scanned,
                                          size_t max_items);

} // namespace stepwise::http
