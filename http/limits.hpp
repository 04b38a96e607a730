#pragma once

#include <chrono>
#include <cstddef>

namespace stepwise::http {

/// Bounds that keep one client from taking more than its share of the
/// server. Every field has a safe default; `stepwise serve` exposes them.
struct limits {
  /// Largest accepted request body in bytes (413 above).
  size_t max_body_bytes = 1 << 20;
  /// Most bytes of a rejected body read and dropped so that the client sees
  /// the answer (closing on unread data resets the connection and loses
  /// it). Longer bodies are cut off by closing the connection.
  size_t max_drain_bytes = 16 << 20;
  /// Deepest accepted JSON nesting of a request body (400 above).
  size_t max_json_depth = 32;
  /// Largest accepted sum of header name and value bytes (431 above).
  size_t max_header_bytes = 16 * 1024;
  /// Largest `limit` of one page of operations.
  size_t max_page = 500;
  /// Largest `limit` of one page of events.
  size_t max_events_page = 1000;
  /// Longest long-poll wait (seconds).
  double max_wait_seconds = 60;
  /// Most long polls and event streams waiting at once (503 above). They
  /// hold no thread; each holds a connection and a few KiB.
  size_t max_streams = 1024;
  /// With tokens: most long polls and event streams one token's holders
  /// keep waiting at once (503 above), so that one client cannot take every
  /// slot.
  size_t max_streams_per_token = 256;
  /// Interval of SSE comments that detect dead clients and keep proxies from
  /// closing an idle stream.
  std::chrono::milliseconds heartbeat{15000};
  /// Shortest time between two writes of one event stream: what is
  /// published meanwhile goes out in one write. With thousands of streams,
  /// a write each per commit would take more CPU than the commits.
  std::chrono::milliseconds stream_flush{10};
  /// Most writes a second of all event streams together, as far as a
  /// longer time between two writes of each can keep to it: 10,000 streams
  /// write every 200 ms at most (at 50,000), 500 or fewer every
  /// `stream_flush`. A stream that is behind writes full pages at once.
  size_t stream_writes_per_second = 50000;
};

} // namespace stepwise::http
