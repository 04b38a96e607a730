#pragma once

#include <memory>

#include <caf/expected.hpp>

namespace stepwise::tools {

/// SIGINT, SIGTERM and SIGHUP for a server, whichever thread they reach
/// (a host's actor system may have started its threads before the server
/// could mask them): a handler writes each to a pipe that `next` reads.
/// One at a time; the handlers in place before are restored on
/// destruction.
class stop_signals {
public:
  [[nodiscard]] static caf::expected<std::unique_ptr<stop_signals>> install();

  stop_signals(const stop_signals&) = delete;
  stop_signals& operator=(const stop_signals&) = delete;
  ~stop_signals();

  /// Waits for the next signal; returns its number.
  int next();

  /// From now on SIGINT or SIGTERM ends the process at once (a second
  /// signal while stopping means "now").
  void stop_hard_on_next();

private:
  stop_signals() = default;
};

} // namespace stepwise::tools
