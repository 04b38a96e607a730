#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace stepwise {

/// A bounded pool of threads for blocking work (user steps, store reads),
/// so that no CAF scheduler thread ever blocks. Jobs answer their callers
/// with messages; the pool knows nothing of actors.
class worker_pool {
public:
  using job = std::function<void()>;

  worker_pool(std::string name, size_t threads);

  /// Selects the pool without threads (`by_hand`).
  struct by_hand_t {};

  /// A pool without threads: its jobs wait until `take` hands them out.
  /// The deterministic simulation runs them itself, in an order it picks.
  worker_pool(std::string name, by_hand_t);

  ~worker_pool();

  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// Queues `j`. Timed jobs (attempts that a timer began: a due retry,
  /// the step after a sleep) run before the others, so that wake-ups keep
  /// their time under a burst of new work; then earliest `rank` first (the
  /// engine ranks steps by when they were due), in submission order for
  /// equal ranks. Returns false (and drops `j`) after `stop`.
  bool submit(job j, int64_t rank = 0, bool timed = false);

  /// Drops the jobs not yet started, waits for the running ones, then joins
  /// the threads. Idempotent.
  void stop();

  /// Returns the number of queued jobs not yet started.
  size_t backlog() const;

  /// Removes and returns the job a worker would run next, or none: for a
  /// pool without threads.
  std::optional<job> take();

private:
  void run();

  std::string name_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  struct entry {
    bool timed;
    int64_t rank;
    uint64_t seq;
    job fn;
    bool operator<(const entry& other) const {
      // std::priority_queue pops the greatest: invert for earliest-first.
      if (timed != other.timed)
        return other.timed;
      return rank != other.rank ? rank > other.rank : seq > other.seq;
    }
  };
  std::priority_queue<entry> jobs_;
  uint64_t next_seq_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

} // namespace stepwise
