#pragma once

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "engine/event.hpp"
#include "engine/registry.hpp"
#include "outbox/sink_actor.hpp"
#include "tests/outbox/kafka_mock.hpp"

// What the outbox tests share: their workflows, fast timing, and the check
// of what a receiver got against the committed log.
namespace stepwise::test {

/// `three` (steps a, b, c) and `task` (one step that emits an
/// `infrastructure_task_completed` event for `input.request_id`).
registry outbox_workflows();

/// Short leases, polls and backoffs, so that tests run in little time.
outbox::sink_timing fast_timing();

/// Polls `pred` every millisecond until it holds (true) or `limit` passed.
template <class Pred>
bool eventually(Pred pred, std::chrono::seconds limit = std::chrono::seconds(10)) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

/// One delivery as a receiver saw it, in arrival order.
struct received {
  std::string message_id;
  std::string operation_id;
};

/// The deliveries in the events a webhook receiver acknowledged.
std::vector<received> from_webhook(const std::vector<boost::json::object>& events);

/// The deliveries in Kafka records (partition by partition, offset order).
std::vector<received> from_kafka(const std::vector<kafka_record>& records);

/// The outcome of comparing deliveries with the committed events.
struct delivery_check {
  size_t distinct = 0;
  size_t duplicates = 0;
  /// Empty when every committed event arrived, nothing else did, and each
  /// operation's events arrived in log order (see `arrival_order`).
  std::vector<std::string> problems;
};

/// Which arrival of an event delivered more than once must be in log order
/// per operation: the first (a webhook: the sink waits for each answer), or
/// the last (Kafka: librdkafka may accept a partition's later record after
/// it failed an earlier one, which the sink then sends again in order).
enum class arrival_order { first, last };

/// Compares `got` with `committed` (the events the sink was to deliver).
delivery_check check_delivery(const std::vector<event>& committed, const std::vector<received>& got,
                              arrival_order order = arrival_order::first);

/// Checks where deliveries went back after processes were killed. `stream`
/// is one ordered stream of deliveries (a webhook's arrivals, or one Kafka
/// partition's records); `cursors` are the sink's stored cursors after
/// each kill. A process sends each event once unless it failed, so a seq
/// that goes back marks a restart, and must be the stream's first event
/// after one of `cursors`: events are sent again only where a kill fell
/// between their delivery and the cursor's write. Returns the problems.
std::vector<std::string> check_restarts(const std::vector<event>& committed,
                                        const std::vector<received>& stream,
                                        const std::vector<int64_t>& cursors);

} // namespace stepwise::test
