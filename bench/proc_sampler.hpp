#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace stepwise::bench {

/// Samples a process's thread count and resident set from `/proc/PID/status`
/// on a thread of its own until stopped: the peaks of a run, which no end
/// reading shows (threads come and go; VmHWM says nothing about threads).
/// Sampling this process counts the sampler's own thread.
class proc_sampler {
public:
  /// Starts sampling process `pid` (0: this one) every `every`.
  explicit proc_sampler(int pid, std::chrono::milliseconds every = std::chrono::milliseconds(10));

  ~proc_sampler();

  proc_sampler(const proc_sampler&) = delete;
  proc_sampler& operator=(const proc_sampler&) = delete;

  /// Takes a last sample and stops; idempotent.
  void stop();

  int64_t peak_threads() const {
    return peak_threads_;
  }

  int64_t peak_rss_kib() const {
    return peak_rss_kib_;
  }

  int64_t samples() const {
    return samples_;
  }

private:
  void sample();

  int pid_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> peak_threads_{0};
  std::atomic<int64_t> peak_rss_kib_{0};
  std::atomic<int64_t> samples_{0};
  std::thread thread_;
};

} // namespace stepwise::bench
