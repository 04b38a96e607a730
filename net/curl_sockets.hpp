#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <curl/curl.h>

namespace stepwise::net::detail {

/// libcurl's multi socket interface on epoll. The I/O thread waits on the
/// sockets libcurl names and on a wake-up and drives libcurl only for the
/// sockets that are ready: `curl_multi_poll` polled every connection on
/// each wake-up, which cost the driver thread more than the calls did at
/// 1,024 connections (bench/README.md, "HTTP path, after").
class curl_sockets {
public:
  curl_sockets() = default;
  curl_sockets(const curl_sockets&) = delete;
  curl_sockets& operator=(const curl_sockets&) = delete;
  ~curl_sockets();

  /// Makes the epoll set and the wake-up and installs the callbacks on
  /// `multi`; an error message on failure.
  std::string attach(CURLM* multi);

  /// Any thread: makes a `wait_and_drive` under way (or the next one)
  /// return.
  void wake();

  /// Waits up to `max_wait` (less when libcurl's timer is due sooner) for
  /// a socket, the timer or a wake-up, and lets libcurl act on what came.
  /// Returns an error message when the wait itself failed.
  std::string wait_and_drive(std::chrono::milliseconds max_wait);

private:
  using clock = std::chrono::steady_clock;

  static int on_socket(CURL* easy, curl_socket_t fd, int what, void* self, void* per_socket);
  static int on_timer(CURLM* multi, long timeout_ms, void* self);

  CURLM* multi_ = nullptr;
  int epoll_ = -1;
  int wake_ = -1;
  /// When libcurl wants its timeout handling run (none: no timer).
  std::optional<clock::time_point> timer_;
};

} // namespace stepwise::net::detail
