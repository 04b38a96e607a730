#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/fwd.hpp>

#include "engine/event.hpp"
#include "engine/requests.hpp"
#include "http/event_filter.hpp"

namespace stepwise::http {

/// Where readers wait for new events. An actor subscribed to the dispatcher
/// (`spawn_event_feeder`) publishes every committed batch here; long polls
/// and event streams register a callback (`notify_beyond`) and hold no
/// thread while they wait, or block on a condition variable
/// (`wait_beyond`), instead of polling the store, so they answer as soon as
/// an event exists.
///
/// It also keeps the newest events. Events are pushed in commit order, so
/// every event after the first one pushed is here until evicted, and
/// tailing readers are served without a store read: by the sole writer's
/// batches (the SQLite store), or on a shared store by the one feed that
/// reads what every process wrote (`spawn_shared_event_feed`). A hub fed
/// otherwise keeps no cache, and its readers re-read the store at least
/// once per `poll_slice`.
///
/// Thread-safe.
class event_hub {
public:
  using clock_type = std::chrono::steady_clock;

  /// Writes an event as readers send it (an event stream's frame).
  using renderer = std::function<void(std::string& out, const event& e)>;

  /// `cache_events` 0 disables the cache. With `render`, the cache keeps
  /// each event's rendering too, made once when a reader first wants it, for
  /// `rendered_after`: ten thousand streams then copy a frame instead of
  /// each writing it again.
  explicit event_hub(size_t cache_events, renderer render = {});

  /// Adds committed events (in log order) and wakes every waiter.
  void publish(const std::vector<event>& events);

  /// Returns the cached events with `seq > after`, at most `limit`, or none
  /// when the cache cannot prove it holds every such event.
  std::optional<std::vector<event>> cached_after(int64_t after, size_t limit) const;

  /// What `rendered_after` looked at.
  struct rendered {
    /// The events looked at, wanted or not.
    size_t count = 0;
    /// The seq of the last event looked at: the reader's next `after`.
    int64_t last = 0;
  };

  /// Appends the renderings of the cached events with `seq > after` that
  /// `filter` wants to `out`, looking at most at `limit` events; none when
  /// the cache cannot prove it holds every such event, or keeps no
  /// renderings.
  std::optional<rendered> rendered_after(int64_t after, size_t limit, std::string& out,
                                         const event_filter& filter = {}) const;

  /// Waits until an event with `seq > after` was published, the hub closed
  /// or `until` passed. Returns whether such an event exists.
  bool wait_beyond(int64_t after, clock_type::time_point until) const;

  /// A registered callback of `notify_beyond`; destroying it cancels the
  /// callback if it has not run yet.
  class subscription {
  public:
    subscription() = default;
    subscription(const subscription&) = delete;
    subscription& operator=(const subscription&) = delete;
    subscription(subscription&& other) noexcept;
    subscription& operator=(subscription&& other) noexcept;
    ~subscription();

  private:
    friend class event_hub;
    subscription(const event_hub* hub, uint64_t id) : hub_(hub), id_(id) {
      // nop
    }
    void cancel();

    const event_hub* hub_ = nullptr;
    uint64_t id_ = 0;
  };

  /// Calls `fn` once, from the publishing thread, as soon as an event with
  /// `seq > after` was published or the hub closed; at once (on this
  /// thread) when that is already so. `fn` must not block nor call back
  /// into the hub. Returns the handle that cancels it.
  [[nodiscard]] subscription notify_beyond(int64_t after, std::function<void()> fn) const;

  /// Returns how many `notify_beyond` callbacks wait.
  size_t subscribers() const;

  /// Wakes every waiter for good (server shutdown). When it returns, no
  /// `notify_beyond` callback runs any more.
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
    ticket(event_hub* hub, std::string holder) : hub_(hub), holder_(std::move(holder)) {
      // nop
    }
    ticket(const ticket&) = delete;
    ticket& operator=(const ticket&) = delete;
    ~ticket();

  private:
    event_hub* hub_;
    std::string holder_;
  };

  /// Why `admit` refused a slot.
  enum class refusal {
    /// The hub closed (the server stops).
    closed,
    /// `max` requests wait already.
    server_full,
    /// The holder has `max_per_holder` waiting already.
    holder_full,
  };

  /// Returns a slot, or null when `max` requests are already waiting.
  std::shared_ptr<ticket> admit(size_t max);

  /// Returns a slot for `holder` (a token's name; empty: no holder, bounded
  /// by `max` only), or why not: `max` waiting in all, or `max_per_holder`
  /// of this holder's.
  std::shared_ptr<ticket> admit(size_t max, const std::string& holder, size_t max_per_holder,
                                refusal* why = nullptr);

  /// Returns how many requests are waiting right now.
  size_t waiting() const;

private:
  void cancel(uint64_t id) const;

  mutable std::mutex mtx_;
  mutable std::condition_variable cv_;
  /// The `notify_beyond` callbacks by id, with the seq they wait beyond.
  mutable std::map<uint64_t, std::pair<int64_t, std::function<void()>>> subscribers_;
  mutable uint64_t next_id_ = 1;
  /// Publishes calling their callbacks right now (outside the lock).
  size_t notifying_ = 0;
  size_t capacity_;
  renderer render_;
  std::deque<event> cache_;
  /// `render_` of each event of `cache_` when set, made by the first
  /// reader that wants it (empty until then).
  mutable std::deque<std::string> frames_;
  /// Every event with a seq above this is in `cache_` (when set).
  std::optional<int64_t> covered_from_;
  int64_t last_seq_ = 0;
  bool closed_ = false;
  size_t waiting_ = 0;
  std::map<std::string, size_t> waiting_by_holder_;
  mutable std::atomic<uint64_t> cache_reads_{0};
  std::atomic<uint64_t> store_reads_{0};
};

/// Spawns the actor that feeds `hub` from `event_batch` messages. Subscribe
/// it with `engine::subscribe`; it ends when sent an exit message.
event_listener spawn_event_feeder(caf::actor_system& sys, std::shared_ptr<event_hub> hub);

} // namespace stepwise::http
