#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace stepwise {

/// A histogram with fixed upper bounds, safe to update from any thread.
/// `bounds` are in the histogram's unit (seconds or a count); the last
/// bucket is +Inf.
template <std::size_t N>
struct histogram {
  std::array<double, N> bounds;
  std::array<std::atomic<uint64_t>, N + 1> buckets{};
  std::atomic<uint64_t> count{0};
  /// Sum in micro-units (value * 1e6), so it can be an atomic integer.
  std::atomic<uint64_t> sum_micro{0};

  explicit histogram(std::array<double, N> b) : bounds(b) {
    // nop
  }

  void observe(double v) {
    size_t i = 0;
    while (i < N && v > bounds[i])
      ++i;
    buckets[i].fetch_add(1, std::memory_order_relaxed);
    count.fetch_add(1, std::memory_order_relaxed);
    sum_micro.fetch_add(static_cast<uint64_t>(v * 1e6), std::memory_order_relaxed);
  }
};

/// Counters and histograms of one engine, updated by its actors and
/// threads, read by the metrics endpoint. Names follow what they export.
struct metrics {
  using counter = std::atomic<uint64_t>;
  using gauge = std::atomic<int64_t>;

  counter operations_started{0};
  counter operations_succeeded{0};
  counter operations_failed{0};
  counter operations_canceled{0};
  counter steps_started{0};
  counter steps_succeeded{0};
  counter steps_failed{0};
  counter steps_retried{0};
  counter steps_timed_out{0};
  /// Late results of abandoned attempts, dropped.
  counter steps_discarded{0};
  /// Attempts running now, until their result is applied (`engine::drain`
  /// waits for none).
  gauge attempts_running{0};
  /// Operations with a live actor.
  gauge operations_live{0};
  /// Operations passivated, waiting for their wake-up time.
  gauge operations_sleeping{0};
  /// Timers armed and not yet fired (retries, sleeps, deadlines).
  gauge timers_pending{0};
  /// Task steps (actors/task_broker.cpp): tasks ready and taken now, long
  /// polls waiting, tasks handed to workers, answers taken, attempts ended
  /// by a start or heartbeat timeout, answers refused as stale.
  gauge tasks_ready{0};
  gauge tasks_taken{0};
  gauge task_pollers{0};
  counter tasks_handed{0};
  counter tasks_answered{0};
  counter tasks_timed_out{0};
  counter tasks_stale_answers{0};
  counter commits{0};
  counter commit_errors{0};
  /// Operations taken over from processes whose lease ended (shared store).
  counter operations_claimed{0};
  /// Operations given up to other processes (more than this one's share).
  counter operations_released{0};
  /// Control requests other processes stored for this one, read to be
  /// carried out (shared store).
  counter commands_read{0};
  /// Notifications heard from the store (shared store), and times the
  /// listening connection was opened again (what was sent meanwhile is
  /// lost, and read from the store instead).
  counter notifications{0};
  counter notifications_lost{0};
  /// Times this process lost its lease and joined again (shared store).
  counter leases_lost{0};
  /// 1 when this process runs the duties done once for all processes on
  /// the store (retention passes, schedule fires): always alone on it; on
  /// a shared store, while its lease is the oldest live one.
  gauge leader{1};
  /// Step run time in seconds.
  histogram<12> step_duration_seconds{
    {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5}};
  /// How long a task waited in its queue, from ready to taken by a worker
  /// (schedule-to-start), in seconds.
  histogram<12> task_wait_seconds{
    {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 10, 60}};
  /// Store commit latency in seconds.
  histogram<10> commit_latency_seconds{
    {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1}};
  /// How late a schedule's fire started its operation (its creation
  /// written), from the fire time, in seconds; the schedule keeper
  /// observes every fire this process started.
  histogram<11> schedule_fire_lateness_seconds{
    {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 10, 60}};
  /// Fires started and skipped by this process (per schedule: the
  /// schedule's own durable counts).
  counter schedule_fires{0};
  counter schedule_skips{0};
  /// Retention (engine_config::retention): what this process removed, its
  /// failed batches, the horizon after its last batch.
  counter retention_operations_removed{0};
  counter retention_events_removed{0};
  counter retention_errors{0};
  gauge retention_horizon{0};
  /// How long each retention batch took (its store transaction and the
  /// reader's hand-off), in seconds.
  histogram<9> retention_batch_seconds{{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30}};
  /// Checkpoints per commit.
  histogram<10> commit_batch_size{{1, 2, 5, 10, 20, 50, 100, 500, 1000, 5000}};
};

} // namespace stepwise
