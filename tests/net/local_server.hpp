#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <httplib.h>

namespace stepwise::test {

/// An `httplib` server on 127.0.0.1, on a port of its own choosing, with
/// its own thread and `threads` handler threads, that counts its handlers
/// (how many run now, the most at once, how many ran). Routes:
///
/// - `GET /fast`: 200 `ok`;
/// - `GET /sleep/<ms>`: 200 `slept` after `<ms>` milliseconds (or `release`);
/// - `GET /hold`: 200 `held` once `release` is called (at most after 60 s);
/// - any method on `/echo`: 200 `<METHOD> <body>`, with the request's
///   Content-Type and `X-Test` header in `X-Echo-Type` and `X-Echo-Test`.
///
/// Destruction releases the handlers, stops the server and joins its thread.
class local_server {
public:
  /// Plain HTTP.
  explicit local_server(int threads = 64);

  /// HTTPS with the given PEM files.
  local_server(int threads, const std::string& cert, const std::string& key);

  ~local_server();

  local_server(const local_server&) = delete;
  local_server& operator=(const local_server&) = delete;

  /// Whether the server listens (false: it could not bind or start).
  bool ok() const {
    return port_ > 0 && ready_;
  }

  int port() const {
    return port_;
  }

  /// Returns `http[s]://127.0.0.1:<port><path>`.
  std::string url(const std::string& path) const;

  /// Ends every wait of `/hold` and `/sleep`, now and later.
  void release();

  /// Waits until `n` handlers run at once, at most `limit`.
  bool wait_active(int n, std::chrono::milliseconds limit);

  int active() const;
  int peak() const;
  int handled() const;

private:
  void start(int threads);
  void routes();
  /// Runs `body` counted as an active handler.
  template <class F>
  void counted(F body);

  std::unique_ptr<httplib::Server> svr_;
  bool tls_ = false;
  int port_ = -1;
  int listen_fd_ = -1;
  std::thread thread_;

  mutable std::mutex mtx_;
  std::condition_variable cv_;
  bool ready_ = false;
  bool released_ = false;
  int active_ = 0;
  int peak_ = 0;
  int handled_ = 0;
};

} // namespace stepwise::test
