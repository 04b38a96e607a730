#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "engine/event.hpp"
#include "engine/sink_store.hpp"
#include "outbox/sink_config.hpp"

namespace stepwise::outbox {

/// The events of one delivery, in log order; shared with the destination
/// while it is in flight.
using event_batch_ptr = std::shared_ptr<const std::vector<event>>;

/// One batch taken for delivery.
struct outgoing {
  uint64_t id = 0;
  event_batch_ptr events;
};

/// The events of one sink between the store and the destination: read
/// (and filtered), waiting, in flight, acknowledged. It knows how far the
/// sink may move its cursor: up to the event before the oldest one not
/// acknowledged, since the cursor must never pass an event that was not
/// delivered.
///
/// Batches are taken in log order. A failed batch waits until `requeue`
/// puts its events, and those of every later batch, back in front of the
/// waiting ones, so that a retry resends the oldest events first and each
/// event's last arrival is in log order.
///
/// Not thread-safe: it belongs to the sink's actor.
class pipeline {
public:
  explicit pipeline(sink_filter filter) : filter_(std::move(filter)) {
    // nop
  }

  /// Forgets everything and starts after `cursor` (the sink was acquired).
  void reset(int64_t cursor);

  /// Adds events read after `read_pos()`, oldest first; keeps the ones the
  /// filter matches. The others count as delivered.
  void add(std::vector<routed_event>& read);

  /// Returns the seq of the last event read.
  int64_t read_pos() const noexcept {
    return read_pos_;
  }

  /// Returns the number of events waiting to be sent.
  size_t waiting() const noexcept {
    return waiting_.size();
  }

  /// Returns the number of batches sent and not yet answered.
  size_t in_flight() const noexcept {
    return in_flight_;
  }

  /// Returns whether nothing waits, is in flight or failed.
  bool idle() const noexcept {
    return waiting_.empty() && batches_.empty();
  }

  /// Takes up to `max` waiting events as a batch, or none when none waits.
  std::optional<outgoing> take(size_t max);

  /// Marks batch `id` acknowledged; returns its events (for statistics).
  event_batch_ptr acked(uint64_t id);

  /// Marks batch `id` failed: `requeue` sends it again.
  void failed(uint64_t id);

  /// Puts the events of the oldest failed batch and of every batch after
  /// it (acknowledged ones too) back in front of the waiting ones, in log
  /// order. Call it when no batch is in flight.
  void requeue();

  /// Returns the highest seq up to which every matched event is
  /// acknowledged: where the cursor may go.
  int64_t confirmed() const;

private:
  enum class batch_state : uint8_t { in_flight, acked, failed };

  struct batch {
    uint64_t id;
    event_batch_ptr events;
    batch_state state;
  };

  batch* find(uint64_t id);

  sink_filter filter_;
  int64_t read_pos_ = 0;
  uint64_t next_id_ = 1;
  size_t in_flight_ = 0;
  std::deque<event> waiting_;
  /// Batches not acknowledged in order yet, oldest first.
  std::deque<batch> batches_;
};

} // namespace stepwise::outbox
