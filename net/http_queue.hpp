#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "net/http_transfer.hpp"

// Internal to `http_client`: the requests that wait for a connection.

namespace stepwise::net::detail {

/// The requests of an `http_client` that wait for a connection under its
/// caps, per origin (`scheme://authority`), first sent first served, each
/// with its deadline. libcurl is handed only what may run now: it would
/// keep the rest in a list that it scans on every removal, and give a free
/// connection to any of them. I/O thread only.
class http_queue {
public:
  using clock = std::chrono::steady_clock;

  /// Caps of zero mean no cap.
  http_queue(int32_t host_cap, int32_t total_cap);

  /// One origin's count of running transfers (opaque to callers).
  struct origin;

  /// A transfer that may start now, counted as running against `from`.
  struct ready {
    std::unique_ptr<http_transfer> t;
    clock::time_point deadline;
    origin* from = nullptr;
  };

  /// Queues `t` behind the other waiting transfers of its origin.
  void push(std::unique_ptr<http_transfer> t, clock::time_point deadline);

  /// Returns the oldest waiting transfer of an origin below its cap, while
  /// fewer than the total cap run; counts it as running.
  std::optional<ready> next();

  /// A transfer `next` returned has ended (or never started).
  void finished(origin* from);

  /// Removes and returns the waiting transfers whose deadline is at or
  /// before `now`.
  std::vector<std::unique_ptr<http_transfer>> expired(clock::time_point now);

  /// Removes and returns the waiting transfer `id`, if it waits.
  std::unique_ptr<http_transfer> remove(uint64_t id);

  /// Removes and returns every waiting transfer.
  std::vector<std::unique_ptr<http_transfer>> take_all();

  size_t waiting() const {
    return waiting_;
  }

  /// Returns `scheme://authority` of `url` in lower case; a URL without
  /// `://` is its own origin.
  static std::string origin_of(const std::string& url);

private:
  size_t host_cap_;
  size_t total_cap_;
  size_t running_ = 0;
  size_t waiting_ = 0;
  /// An origin with nothing waiting or running is dropped.
  std::unordered_map<std::string, origin> origins_;
};

struct http_queue::origin {
  std::deque<std::pair<std::unique_ptr<http_transfer>, clock::time_point>> waiting;
  size_t running = 0;
};

} // namespace stepwise::net::detail
