#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>
#include <httplib.h>

namespace stepwise::test {

/// A webhook receiver on 127.0.0.1 (a free port): it answers POSTs, fails
/// some on purpose, checks each request's signature itself (HMAC-SHA256
/// with OpenSSL, under `secret`) and keeps the events of the requests it
/// acknowledged, in arrival order.
class webhook_receiver {
public:
  explicit webhook_receiver(std::string secret = {});
  ~webhook_receiver();

  webhook_receiver(const webhook_receiver&) = delete;
  webhook_receiver& operator=(const webhook_receiver&) = delete;

  /// Returns `http://127.0.0.1:PORT/hook`.
  std::string url() const;

  /// Answers every `n`-th request 500 (0: none).
  void fail_every(int n) {
    fail_every_.store(n);
  }

  /// While down, every request is answered 503.
  void set_down(bool down) {
    down_.store(down);
  }

  /// While held, requests wait unanswered (a receiver that hangs); on
  /// `hold(false)` they are answered 503.
  void hold(bool on);

  /// Returns the requests waiting in a hold.
  size_t holding() const;

  /// Returns the events of acknowledged requests, in arrival order.
  std::vector<boost::json::object> accepted() const;

  /// Returns the requests seen, acknowledged or not.
  size_t calls() const {
    return calls_.load();
  }

  /// Returns the requests whose signature did not match (or was missing).
  size_t bad_signatures() const {
    return bad_signatures_.load();
  }

  /// Returns the raw headers of the last acknowledged request.
  httplib::Headers last_headers() const;

  /// Waits (bounded) until at least `n` events were acknowledged.
  bool wait_for(size_t n, std::chrono::seconds limit) const;

private:
  void on_post(const httplib::Request& req, httplib::Response& res);

  std::string secret_;
  httplib::Server svr_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> fail_every_{0};
  std::atomic<bool> down_{false};
  std::atomic<size_t> calls_{0};
  std::atomic<size_t> bad_signatures_{0};
  mutable std::mutex mtx_;
  mutable std::condition_variable cv_;
  bool held_ = false;
  size_t holding_ = 0;
  std::vector<boost::json::object> accepted_;
  httplib::Headers last_headers_;
};

} // namespace stepwise::test
