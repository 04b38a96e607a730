#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/sse_decoder.hpp"

namespace stepwise::test {

/// A TCP connection to 127.0.0.1:`port` with no HTTP client on it: for
/// clients that misbehave (stall mid-header, trickle) and for many
/// connections that one thread reads.
class raw_conn {
public:
  explicit raw_conn(int port);
  raw_conn(raw_conn&& other) noexcept;
  raw_conn& operator=(raw_conn&&) = delete;
  raw_conn(const raw_conn&) = delete;
  ~raw_conn();

  int fd() const {
    return fd_;
  }

  /// Sends all of `data`; false when the connection failed.
  bool send(std::string_view data);

  /// Reads until the server closes the connection or `limit` passes;
  /// returns whether it closed. What arrived is appended to `got`.
  bool await_close(std::chrono::milliseconds limit, std::string* got = nullptr);

private:
  int fd_ = -1;
};

/// Event streams on raw connections, each decoded as it arrives; the
/// calling thread reads them all (poll), so that hundreds of streams need
/// no thread each.
class stream_fleet {
public:
  /// Opens `n` connections and sends `request` (a whole HTTP request) on
  /// each.
  stream_fleet(int port, size_t n, const std::string& request);

  /// Reads what arrives until `done` holds or `limit` passes; returns
  /// `done()`.
  bool pump_until(const std::function<bool()>& done, std::chrono::milliseconds limit);

  size_t size() const {
    return conns_.size();
  }

  const bench::sse_decoder& at(size_t i) const {
    return decoders_[i];
  }

  /// Streams answered 200 whose first heartbeat arrived.
  size_t admitted() const;

  /// Connections the server closed.
  size_t closed() const;

  /// Whether every stream's ids end with `last`.
  bool all_reached(int64_t last) const;

private:
  std::vector<raw_conn> conns_;
  std::vector<bench::sse_decoder> decoders_;
  std::vector<bool> closed_;
};

/// Returns an HTTP/1.1 GET of `target` with `extra` header lines (each
/// ending in CRLF).
std::string get_request(const std::string& target, const std::string& extra = "");

} // namespace stepwise::test
