#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include <caf/fwd.hpp>

#include "engine/event.hpp"
#include "engine/requests.hpp"

namespace stepwise::http {

/// Where HTTP threads wait for new events. An actor subscribed to the dispatcher
/// (`spawn_event_feeder`) publishes every committed batch here; long polls
/// and event streams block on a condition variable instead of polling the
/// store, so they answer as soon as an event exists.
///
/// It also keeps the newest events. When the log has a single writer (the
/// SQLite store) events are pushed in commit order, so every event after the
/// first one pushed is here until evicted, and tailing readers are served
/// without a store read. With several writers (PostgreSQL, several
/// processes) the cache cannot know about the others' events and stays off;
/// readers then re-read the store at least once per `poll_slice`.
///
/// Thread-safe.
class event_hub {
public:
  using clock_type = std::chrono::steady_clock;

  /// `cache_events` 0 disables the cache.
  explicit event_hub(size_t cache_events);

  /// Adds committed events (in log order) and wakes every waiter.
  void publish(const std::vector<event>& events);

  /// Returns the cached events with `seq > after`, at most `limit`, or none
  /// when the cache cannot prove it holds every such event.
  std::optional<std::vector<event>> cached_after(int64_t after, size_t limit) const;

  /// Waits until an event with `seq > after` was published, the hub closed
  /// or `until` passed. Returns whether such an event exists.
  bool wait_beyond(int64_t after, clock_type::time_point until) const;

  /// Wakes every waiter for good (server shutdown).
  void close();

  bool closed() const;

  /// Returns whether the cache is on (this process is the log's only
  /// writer); otherwise readers must poll the store for others' events.
  bool caching() const {
    return capacity_ > 0;
  }

  /// Returns the highest published seq (0 before the first batch).
  int64_t last_seq() const;

  /// Returns how many reads the cache answered and how many went to the
  /// store (for the metrics endpoint).
  std::pair<uint64_t, uint64_t> read_counts() const {
    return {cache_reads_.load(std::memory_order_relaxed),
            store_reads_.load(std::memory_order_relaxed)};
  }

  /// Counts a read that the cache could not answer.
  void count_store_read() {
    store_reads_.fetch_add(1, std::memory_order_relaxed);
  }

  // -- admission of waiting requests ------------------------------------------

  /// A slot of a waiting request; releases it when destroyed.
  class ticket {
  public:
    explicit ticket(event_hub* hub) : hub_(hub) {
      // nop
    }
    ticket(const ticket&) = delete;
    ticket& operator=(const ticket&) = delete;
    ~ticket();

  private:
    event_hub* hub_;
  };

  /// Returns a slot, or null when `max` requests are already waiting.
  std::shared_ptr<ticket> admit(size_t max);

  /// Returns how many requests are waiting right now.
  size_t waiting() const;

private:
  mutable std::mutex mtx_;
  mutable std::condition_variable cv_;
  size_t capacity_;
  std::deque<event> cache_;
  /// Every event with a seq above this is in `cache_` (when set).
  std::optional<int64_t> covered_from_;
  int64_t last_seq_ = 0;
  bool closed_ = false;
  size_t waiting_ = 0;
  mutable std::atomic<uint64_t> cache_reads_{0};
  std::atomic<uint64_t> store_reads_{0};
};

/// Spawns the actor that feeds `hub` from `event_batch` messages. Subscribe
/// it with `engine::subscribe`; it ends when sent an exit message.
event_listener spawn_event_feeder(caf::actor_system& sys, std::shared_ptr<event_hub> hub);

} // namespace stepwise::http
