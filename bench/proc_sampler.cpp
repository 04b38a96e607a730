#include "bench/proc_sampler.hpp"

#include <algorithm>

#include "bench/proc_stats.hpp"

namespace stepwise::bench {

proc_sampler::proc_sampler(int pid, std::chrono::milliseconds every) : pid_(pid) {
  sample();
  thread_ = std::thread{[this, every] {
    while (!stop_.load()) {
      std::this_thread::sleep_for(every);
      sample();
    }
  }};
}

proc_sampler::~proc_sampler() {
  stop();
}

void proc_sampler::stop() {
  if (stop_.exchange(true))
    return;
  thread_.join();
  sample();
}

void proc_sampler::sample() {
  auto threads = status_of(pid_, "Threads");
  auto rss = status_of(pid_, "VmRSS");
  // stop() joins the sampler before its last sample: one writer at a time.
  peak_threads_ = std::max(peak_threads_.load(), threads);
  peak_rss_kib_ = std::max(peak_rss_kib_.load(), rss);
  ++samples_;
}

} // namespace stepwise::bench
