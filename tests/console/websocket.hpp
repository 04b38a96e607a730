#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace stepwise::test {

/// A minimal WebSocket client (RFC 6455) for the browser's DevTools
/// protocol: one connection to 127.0.0.1, text messages, no extensions.
class websocket {
public:
  using clock = std::chrono::steady_clock;

  websocket() = default;
  ~websocket();

  websocket(const websocket&) = delete;
  websocket& operator=(const websocket&) = delete;

  /// Connects to `127.0.0.1:port` and upgrades the request for `path`.
  /// Returns an error text, or "".
  std::string connect(int port, const std::string& path, clock::time_point deadline);

  /// Sends one text message; returns whether it went out.
  bool send_text(const std::string& text);

  /// Returns the next text message (fragments joined; pings answered), or
  /// nothing at the deadline, at a close or on an error.
  std::optional<std::string> receive(clock::time_point deadline);

private:
  bool read_exact(char* out, size_t n, clock::time_point deadline);
  bool send_frame(int opcode, const std::string& payload);

  int fd_ = -1;
  std::string buffer_;
};

} // namespace stepwise::test
