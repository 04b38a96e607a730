#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <sys/types.h>

#include "engine/event.hpp"
#include "engine/operation.hpp"
#include "tests/durability/child_process.hpp"

// What the admission durability tests read back after killing children:
// when each operation was in progress, by the event log (seq) and by its
// side effects (wall-clock time), and the checks of serialization, limits
// and creation order over those spans.
namespace stepwise::test {

/// When one operation was in progress.
struct op_span {
  std::string id;
  std::string workflow;
  std::string key;
  /// Creation order: (created_at, id), as admission rounds read it.
  int64_t created_us = 0;
  int64_t created_seq = 0;
  /// The first `step_started` (0: none) and the terminal event (0: none).
  int64_t start_seq = 0;
  int64_t end_seq = 0;
  int64_t end_us = 0;
  /// The first and last side effect of any attempt (0: none).
  int64_t first_effect_us = 0;
  int64_t last_effect_us = 0;
  /// Processes that ran its attempts.
  std::vector<pid_t> pids;
};

/// Builds the spans of `ops` from the event log and the side effects.
std::map<std::string, op_span> spans_of(const std::vector<operation>& ops,
                                        const std::vector<event>& events,
                                        const std::vector<effect_line>& effects);

/// Returns, as sentences, every pair of operations with the same key that
/// were in progress at once: the later one's first step started (by seq)
/// before the earlier one's terminal event, or one of its side effects
/// happened before that event's time.
std::vector<std::string> key_overlaps(const std::map<std::string, op_span>& spans);

/// Returns, as sentences, every pair of operations with the same key that
/// started in the other order than they were created, by both measures of
/// creation: `created_at` (what admission rounds order by) and the seq of
/// `operation_created` (commit order). In one process the two agree; with
/// several, creations that overlap in time may commit in the other order
/// than their clocks say, and then either order keeps the promise.
std::vector<std::string> order_breaks(const std::map<std::string, op_span>& spans);

/// Returns the most operations of `workflow` in progress at once, counted
/// over the event log (first step_started to terminal event, by seq).
size_t most_at_once_by_seq(const std::map<std::string, op_span>& spans,
                           const std::string& workflow);

/// The same over side effects: from the first effect to the terminal
/// event's time.
size_t most_at_once_by_time(const std::map<std::string, op_span>& spans,
                            const std::string& workflow);

/// Returns microseconds since the epoch.
int64_t micros(time_point t);

} // namespace stepwise::test
