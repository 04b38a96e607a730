#include "tools/drain.hpp"

#include <thread>

#include "tools/log.hpp"

namespace stepwise::tools {

int64_t drain(engine& eng, std::chrono::seconds timeout) {
  eng.drain();
  auto running = eng.attempts_running();
  log(log_level::info, "draining: no new operations; waiting up to "
                         + std::to_string(timeout.count()) + " s for " + std::to_string(running)
                         + " running attempts (--drain-timeout; a second signal stops at once)");
  auto deadline = std::chrono::steady_clock::now() + timeout;
  // A poll: the count changes on actor threads, which must not wait on a
  // lock of ours; 20 ms is nothing next to a drain and costs no CPU.
  while ((running = eng.attempts_running()) > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (running > 0)
    log(log_level::warn, "drain timeout: " + std::to_string(running)
                           + " attempts still running are left to the next start (as after a "
                             "crash: they run again)");
  else
    log(log_level::info, "drained: every running attempt finished and is queued for writing");
  return running;
}

} // namespace stepwise::tools
