#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/sse_decoder.hpp"

namespace stepwise::bench {

/// What the connections of a `stream_clients` saw, at one moment.
struct stream_counts {
  /// Streams answered 200 whose first heartbeat arrived.
  size_t admitted = 0;
  /// Streams answered with another status (a 503 beyond the bounds).
  size_t refused = 0;
  /// Streams whose connection the server closed.
  size_t closed = 0;
  /// Times the server cut a stalled client off (each then opened again).
  size_t stalled_cut = 0;
  /// Stalled clients open right now.
  size_t stalled_open = 0;
};

/// Many connections to one server, held by one thread (epoll): event
/// streams, each decoded as it arrives (counts, order and digest of the
/// ids, not the ids), and clients that send half a request head and stall,
/// each opened again when the server cuts it off, so that as many stay
/// stalled all along.
class stream_clients {
public:
  /// `host` is a numeric IPv4 address.
  stream_clients(std::string host, int port);

  stream_clients(const stream_clients&) = delete;
  stream_clients& operator=(const stream_clients&) = delete;

  /// Stops the thread and closes every connection.
  ~stream_clients();

  /// Opens `n` connections and sends `request` on each; returns how many
  /// connected. Call before `start`.
  size_t open_streams(size_t n, const std::string& request);

  /// Opens `n` connections that send `partial` and then nothing; returns
  /// how many connected. Call before `start`.
  size_t open_stalled(size_t n, const std::string& partial);

  /// Starts reading on a thread of its own.
  void start();

  stream_counts counts() const;

  /// Returns how many streams have a frame with id `last` or beyond.
  size_t reached(int64_t last) const;

  /// Returns how many streams got exactly `count` frames with this
  /// `digest`, in order.
  size_t complete(size_t count, uint64_t digest) const;

private:
  struct conn {
    int fd = -1;
    bool stalled = false;
    bool closed = false;
    sse_decoder decoder{false};
  };

  int connect_one();
  void run();
  void on_readable(size_t i);

  std::string host_;
  int port_;
  std::string partial_;
  int epoll_ = -1;
  std::vector<conn> conns_;
  mutable std::mutex mtx_;
  size_t stalled_cut_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace stepwise::bench
