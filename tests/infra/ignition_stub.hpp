#pragma once

#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>
#include <httplib.h>

namespace stepwise::test {

/// An Ignition driver played by an in-test server on 127.0.0.1 (a port of
/// its own): it answers every POST with the scripted status and body,
/// remembers what it was sent, and counts its handlers (how many run now,
/// the most at once). `hold` makes answers wait until `release`.
class ignition_stub {
public:
  /// Plain HTTP, `threads` handler threads.
  explicit ignition_stub(int threads = 8);

  /// HTTPS with the given PEM files.
  ignition_stub(int threads, const std::string& cert, const std::string& key);

  ~ignition_stub();

  ignition_stub(const ignition_stub&) = delete;
  ignition_stub& operator=(const ignition_stub&) = delete;

  void answer(int status, std::string body);

  /// Makes answers wait until `release`.
  void hold();
  void release();

  /// Waits until `n` handlers run at once, at most `limit`.
  bool wait_active(int n, std::chrono::milliseconds limit);

  int peak() const;

  /// Returns `http[s]://127.0.0.1:<port><prefix>`.
  std::string url(const std::string& prefix = "") const;

  std::vector<std::string> paths() const;

  boost::json::value last_body() const;

  /// Every request body so far, in arrival order (as `paths`).
  std::vector<std::string> bodies() const;

private:
  void start(int threads);

  std::unique_ptr<httplib::Server> svr_;
  bool tls_ = false;
  std::thread thread_;
  int port_ = -1;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  int status_ = 202;
  std::string body_;
  std::vector<std::string> paths_;
  std::vector<std::string> bodies_;
  std::promise<void> promise_;
  std::shared_future<void> gate_;
  bool released_ = false;
  int active_ = 0;
  int peak_ = 0;
  bool pool_ready_ = false;
};

} // namespace stepwise::test
