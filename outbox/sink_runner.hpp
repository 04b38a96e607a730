#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <caf/typed_event_based_actor.hpp>

#include "outbox/messages.hpp"
#include "outbox/pipeline.hpp"
#include "outbox/sink_actor.hpp"

namespace stepwise::outbox::detail {

/// The state and steps of one sink's actor (`spawn_sink`). Every member
/// function runs on that actor; blocking store calls go to the pool as
/// jobs whose answers come back as messages (`sink_jobs.cpp`).
class runner {
public:
  runner(sink_runner_actor::pointer self, std::shared_ptr<const sink_context> ctx);

  // -- events (sink_actor.cpp) -------------------------------------------------

  /// Asks for the sink's lease and arms the periodic tick.
  void start();

  /// Events up to `seq` are committed (the engine's wake-up).
  void on_wake(int64_t seq);

  /// The periodic tick: take the sink if free, poll the store, renew.
  void on_tick(uint64_t gen);

  /// The answer of `acquire`: on success, start from the stored cursor.
  void on_acquired(acquired& a);

  /// A poll timer of a busy sink ran out: read again.
  void on_poll(uint64_t epoch);

  /// Events read from the store.
  void on_read(read_done& r);

  /// A batch's outcome: acknowledged, or failed (back off, then resend).
  void on_sent(sent& s);

  /// A backoff ended: resend once nothing is in flight.
  void on_retry(uint64_t gen);

  /// A cursor write's answer; a lost lease stops the delivery.
  void on_saved(saved& s);

  /// Stops sending; once the cursor is written and the lease released (at
  /// once without a lease) the actor gets `ob_done_atom` and quits.
  void on_stop();

private:
  // -- the work (sink_jobs.cpp: store jobs, sending, bookkeeping) ------------------

  /// Returns this actor's handle (jobs and timers answer to it).
  sink_runner_actor me() const;

  /// Returns the engine clock's time.
  time_point now() const;

  /// Whether the lease surely still holds: in a shared store, no new batch
  /// goes out once no renewal succeeded for 0.9 ttl.
  bool lease_safe() const;

  /// Asks the store for the sink's lease (a pool job).
  void acquire();

  /// Reads, sends and writes the cursor as far as the state allows.
  void pump();

  /// Reads the next page of the log (a pool job) when events are known
  /// to wait, or a poll is due, and the pipeline has room.
  void read_more();

  /// Hands batches to the destination up to its window.
  void send_more();

  /// Writes the cursor (which also renews the lease) when it moved and
  /// either the sink is idle or `cursor_interval` passed, when an error
  /// is to be recorded, or when the lease is due for renewal.
  void save();

  /// Counts an acknowledged batch and its events' lags.
  void record_delivery(const std::vector<event>& events);

  /// Stops sending and arms the retry timer (doubling, with jitter).
  void back_off(const std::string& msg);

  /// Sends the failed batches again, oldest first.
  void resume();

  /// Another process took the sink: drop everything of this lease.
  void lose_lease();

  /// Logs `msg` unless it repeats the last warning.
  void warn_once(const std::string& msg);

  /// Copies what the status and metrics show into the shared stats.
  void publish();

  // -- state ---------------------------------------------------------------------

  sink_runner_actor::pointer self_;
  std::shared_ptr<const sink_context> ctx_;
  pipeline pipe_;
  /// Bumped when the lease is taken or lost: answers of an older epoch
  /// belong to work of a lease since lost, and are dropped.
  uint64_t epoch_ = 0;
  uint64_t tick_gen_ = 0;
  uint64_t retry_gen_ = 0;
  bool held_ = false;
  bool acquiring_ = false;
  bool reading_ = false;
  bool saving_ = false;
  bool poll_due_ = false;
  bool poll_armed_ = false;
  /// When a read last found events (busy polling goes on for a while).
  time_point found_at_;
  bool backing_off_ = false;
  bool retry_due_ = false;
  bool stopping_ = false;
  int64_t known_last_ = 0;
  /// The cursor as stored.
  int64_t durable_ = 0;
  time_point renewed_at_;
  time_point saved_at_;
  /// An error (or its clearing, "") not yet written to the store.
  std::optional<std::string> error_to_store_;
  duration backoff_;
  size_t failures_ = 0;
  bool failure_logged_ = false;
  std::optional<time_point> failure_logged_at_;
  std::string last_warning_;
  std::minstd_rand rng_;
};

} // namespace stepwise::outbox::detail
