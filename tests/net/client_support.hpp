#pragma once

// What the HTTP client's tests share: a collector of answers, a GET
// request, a port nothing listens on.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/http_client.hpp"

namespace stepwise::test {

using namespace stepwise::net;
using namespace std::chrono_literals;

/// Collects the results of requests 0..n-1 and how often each was answered.
class results {
public:
  explicit results(size_t n) : items_(n), calls_(n, 0) {
    // nop
  }

  http_callback at(size_t i) {
    return [this, i](http_result r) {
      {
        std::lock_guard<std::mutex> guard{mtx_};
        items_[i] = std::move(r);
        if (calls_[i]++ == 0)
          ++answered_;
      }
      cv_.notify_all();
    };
  }

  /// Waits until every request was answered, at most `limit`.
  bool wait_all(std::chrono::milliseconds limit = 60s) {
    std::unique_lock<std::mutex> guard{mtx_};
    return cv_.wait_for(guard, limit, [this] { return answered_ == items_.size(); });
  }

  /// Returns whether every request was answered exactly once.
  bool each_once() const {
    std::lock_guard<std::mutex> guard{mtx_};
    return std::all_of(calls_.begin(), calls_.end(), [](int n) { return n == 1; });
  }

  size_t answered() const {
    std::lock_guard<std::mutex> guard{mtx_};
    return answered_;
  }

  const http_response* response(size_t i) const {
    std::lock_guard<std::mutex> guard{mtx_};
    return items_[i] ? std::get_if<http_response>(&*items_[i]) : nullptr;
  }

  std::optional<http_error_kind> error(size_t i) const {
    std::lock_guard<std::mutex> guard{mtx_};
    if (!items_[i])
      return std::nullopt;
    if (auto err = std::get_if<http_error>(&*items_[i]))
      return err->kind;
    return std::nullopt;
  }

  /// Whether request `i` failed with `request_sent`.
  bool error_sent(size_t i) const {
    std::lock_guard<std::mutex> guard{mtx_};
    auto err = items_[i] ? std::get_if<http_error>(&*items_[i]) : nullptr;
    return err != nullptr && err->request_sent;
  }

  /// How many answers are a response with `status`.
  size_t with_status(int32_t status) const {
    std::lock_guard<std::mutex> guard{mtx_};
    return static_cast<size_t>(std::count_if(items_.begin(), items_.end(), [&](auto& x) {
      auto res = x ? std::get_if<http_response>(&*x) : nullptr;
      return res != nullptr && res->status == status;
    }));
  }

  /// How many answers are an error of `kind`.
  size_t with_error(http_error_kind kind) const {
    std::lock_guard<std::mutex> guard{mtx_};
    return static_cast<size_t>(std::count_if(items_.begin(), items_.end(), [&](auto& x) {
      auto err = x ? std::get_if<http_error>(&*x) : nullptr;
      return err != nullptr && err->kind == kind;
    }));
  }

private:
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::vector<std::optional<http_result>> items_;
  std::vector<int> calls_;
  size_t answered_ = 0;
};

inline http_request get(std::string url, std::chrono::milliseconds timeout = 0ms) {
  http_request req;
  req.url = std::move(url);
  req.timeout = timeout;
  return req;
}

/// A port on 127.0.0.1 that nothing listens on (bound once, then closed).
inline int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0
      && ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

} // namespace stepwise::test
