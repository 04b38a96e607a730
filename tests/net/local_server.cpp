#include "tests/net/local_server.hpp"

#include <algorithm>

#include <sys/socket.h>

namespace stepwise::test {

local_server::local_server(int threads) : svr_(std::make_unique<httplib::Server>()) {
  start(threads);
}

local_server::local_server(int threads, const std::string& cert, const std::string& key)
  : svr_(std::make_unique<httplib::SSLServer>(cert.c_str(), key.c_str())), tls_(true) {
  start(threads);
}

local_server::~local_server() {
  release();
  svr_->stop();
  if (thread_.joinable())
    thread_.join();
}

void local_server::start(int threads) {
  if (!svr_->is_valid())
    return;
  routes();
  svr_->set_keep_alive_max_count(1'000'000);
  // httplib listens with a backlog of 5: a burst of connects would see
  // dropped SYNs and one-second retries. Remember the listening socket to
  // listen on it again with a longer backlog (Linux keeps the socket and
  // changes the backlog).
  svr_->set_socket_options([this](socket_t fd) {
    httplib::default_socket_options(fd);
    listen_fd_ = fd;
  });
  svr_->new_task_queue = [this, threads] {
    auto* q = new httplib::ThreadPool(static_cast<size_t>(threads));
    {
      std::lock_guard<std::mutex> guard{mtx_};
      ready_ = true; // The pool's threads exist from here on.
    }
    cv_.notify_all();
    return q;
  };
  port_ = svr_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0)
    return;
  ::listen(listen_fd_, 4096);
  thread_ = std::thread{[this] { svr_->listen_after_bind(); }};
  std::unique_lock<std::mutex> guard{mtx_};
  cv_.wait_for(guard, std::chrono::seconds(10), [this] { return ready_; });
}

std::string local_server::url(const std::string& path) const {
  return (tls_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port_) + path;
}

template <class F>
void local_server::counted(F body) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    peak_ = std::max(peak_, ++active_);
  }
  cv_.notify_all();
  body();
  {
    std::lock_guard<std::mutex> guard{mtx_};
    --active_;
    ++handled_;
  }
  cv_.notify_all();
}

void local_server::routes() {
  svr_->Get("/fast", [this](const httplib::Request&, httplib::Response& res) {
    counted([&] { res.set_content("ok", "text/plain"); });
  });
  svr_->Get(R"(/sleep/(\d+))", [this](const httplib::Request& req, httplib::Response& res) {
    auto ms = std::chrono::milliseconds(std::stol(req.matches[1]));
    counted([&] {
      std::unique_lock<std::mutex> guard{mtx_};
      cv_.wait_for(guard, ms, [this] { return released_; });
      res.set_content("slept", "text/plain");
    });
  });
  svr_->Get("/hold", [this](const httplib::Request&, httplib::Response& res) {
    counted([&] {
      std::unique_lock<std::mutex> guard{mtx_};
      cv_.wait_for(guard, std::chrono::seconds(60), [this] { return released_; });
      res.set_content("held", "text/plain");
    });
  });
  auto echo = [this](const httplib::Request& req, httplib::Response& res) {
    counted([&] {
      res.set_header("X-Echo-Type", req.get_header_value("Content-Type"));
      res.set_header("X-Echo-Test", req.get_header_value("X-Test"));
      res.set_content(req.method + " " + req.body, "text/plain");
    });
  };
  svr_->Get("/echo", echo);
  svr_->Post("/echo", echo);
  svr_->Put("/echo", echo);
  svr_->Delete("/echo", echo);
}

void local_server::release() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    released_ = true;
  }
  cv_.notify_all();
}

bool local_server::wait_active(int n, std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> guard{mtx_};
  return cv_.wait_for(guard, limit, [&] { return active_ >= n; });
}

int local_server::active() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return active_;
}

int local_server::peak() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return peak_;
}

int local_server::handled() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return handled_;
}

} // namespace stepwise::test
