#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/metrics.hpp"
#include "engine/time.hpp"

namespace stepwise::outbox {

/// What one sink did in this process: written by its actor, read by the
/// metrics endpoint, the sinks route and the benchmark (any thread).
struct sink_stats {
  /// Events acknowledged by the destination (duplicates after a retry
  /// count again).
  std::atomic<uint64_t> delivered{0};
  /// Events of batches that failed (each attempt counts).
  std::atomic<uint64_t> failed{0};
  /// Where the cursor may go: every matched event up to it is delivered.
  std::atomic<int64_t> confirmed{0};
  /// The highest seq this process knows to be committed.
  std::atomic<int64_t> known_last{0};
  /// Whether this process holds the sink.
  std::atomic<bool> held{false};
  /// Seconds from an event's time to its acknowledgement.
  histogram<10> lag_seconds{{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30}};

  /// Records a delivery acknowledged at `now` (it clears the last error).
  void note_delivery(time_point now) {
    std::lock_guard<std::mutex> guard{mtx_};
    last_delivery_ = now;
    last_error_.clear();
  }

  /// Records a failed delivery's error (never holding a secret).
  void note_failure(std::string error) {
    std::lock_guard<std::mutex> guard{mtx_};
    last_error_ = std::move(error);
  }

  /// Returns the last error; empty once a delivery succeeded again.
  std::string last_error() const {
    std::lock_guard<std::mutex> guard{mtx_};
    return last_error_;
  }

  /// Returns when a delivery was last acknowledged.
  std::optional<time_point> last_delivery() const {
    std::lock_guard<std::mutex> guard{mtx_};
    return last_delivery_;
  }

  /// Keeps every lag (milliseconds) from now on, for exact percentiles.
  void keep_lags() {
    std::lock_guard<std::mutex> guard{mtx_};
    keep_lags_ = true;
  }

  /// Adds lags (milliseconds), if `keep_lags` was called.
  void add_lags(const std::vector<double>& ms) {
    std::lock_guard<std::mutex> guard{mtx_};
    if (keep_lags_)
      lags_ms_.insert(lags_ms_.end(), ms.begin(), ms.end());
  }

  /// Returns the lags kept so far.
  std::vector<double> lags_ms() const {
    std::lock_guard<std::mutex> guard{mtx_};
    return lags_ms_;
  }

private:
  mutable std::mutex mtx_;
  std::string last_error_;
  std::optional<time_point> last_delivery_;
  bool keep_lags_ = false;
  std::vector<double> lags_ms_;
};

} // namespace stepwise::outbox
