#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>

#include <boost/json.hpp>

#include "tests/console/websocket.hpp"

namespace stepwise::test {

/// The Chromium of Debian, if installed.
inline constexpr const char* chromium_path = "/usr/bin/chromium";

/// Headless Chromium driven through its DevTools protocol: launched in its
/// own process group with a fresh profile, connected to its first page;
/// killed (the whole group) and its profile removed at destruction.
class browser {
public:
  /// Launches it with a `width` x `height` window; `error()` says what
  /// failed.
  browser(int width, int height);
  ~browser();

  browser(const browser&) = delete;
  browser& operator=(const browser&) = delete;

  /// Empty once connected.
  const std::string& error() const {
    return error_;
  }

  /// Calls a DevTools method; returns its `result` (null on an error or
  /// timeout, and `error()` says which).
  boost::json::value call(const std::string& method, boost::json::object params = {});

  /// Evaluates `expr` in the page (awaiting a promise) and returns its value.
  boost::json::value eval(const std::string& expr);

  /// Evaluates `expr` until it is `true` or `bound` passes; returns whether
  /// it became true.
  bool wait_for(const std::string& expr, std::chrono::seconds bound);

  /// Loads `url` in the page.
  void navigate(const std::string& url);

  /// Writes a PNG of the page to `path`; returns whether it did.
  bool screenshot(const std::string& path);

  /// What the browser wrote to stderr so far (its log file).
  std::string log() const;

private:
  pid_t pid_ = -1;
  std::string dir_;
  std::string error_;
  int64_t next_id_ = 1;
  std::unique_ptr<websocket> ws_;
};

} // namespace stepwise::test
