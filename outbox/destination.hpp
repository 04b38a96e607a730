#pragma once

#include <cstddef>
#include <functional>

#include <caf/error.hpp>

#include "outbox/pipeline.hpp"

namespace stepwise::outbox {

/// Receives the outcome of one `destination::send`, exactly once, on any
/// thread: no error when the destination acknowledged every event of the
/// batch, else why not (never holding a secret). It must not block.
using delivery_callback = std::function<void(caf::error)>;

/// Where a sink delivers: a webhook, a Kafka topic. The sink's actor
/// decides what to send and when; the destination only carries batches and
/// reports back, asynchronously: no thread waits for an answer.
///
/// Lifecycle: made by the outbox at start, `send` from the sink's actor,
/// `stop` once at shutdown (off CAF threads: it may block).
class destination {
public:
  virtual ~destination() = default;

  /// Returns how many batches may be in flight at once. Above 1 the
  /// destination itself keeps the order of an operation's events.
  virtual size_t window() const = 0;

  /// Returns the most events one batch may carry.
  virtual size_t max_batch() const = 0;

  /// Starts delivering `batch` (log order); never blocks.
  virtual void send(event_batch_ptr batch, delivery_callback done) = 0;

  /// Ends deliveries in flight (their callbacks run, with an error, or not
  /// at all) and releases connections. Idempotent; may block.
  virtual void stop() = 0;
};

} // namespace stepwise::outbox
