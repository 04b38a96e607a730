#include "tests/infra/ignition_stub.hpp"

#include <algorithm>

#include <sys/socket.h>

#include <catch2/catch.hpp>

namespace stepwise::test {

ignition_stub::ignition_stub(int threads) : svr_(std::make_unique<httplib::Server>()) {
  start(threads);
}

ignition_stub::ignition_stub(int threads, const std::string& cert, const std::string& key)
  : svr_(std::make_unique<httplib::SSLServer>(cert.c_str(), key.c_str())), tls_(true) {
  start(threads);
}

void ignition_stub::start(int threads) {
  REQUIRE(svr_->is_valid());
  // As tests/infra/local_server.cpp: the handler threads exist once the
  // pool does, and the backlog is long enough for a burst of connects.
  svr_->new_task_queue = [this, threads] {
    auto* q = new httplib::ThreadPool(static_cast<size_t>(threads));
    {
      std::lock_guard<std::mutex> g{mtx_};
      pool_ready_ = true;
    }
    cv_.notify_all();
    return q;
  };
  int listen_fd = -1;
  svr_->set_socket_options([&listen_fd](socket_t fd) {
    httplib::default_socket_options(fd);
    listen_fd = fd;
  });
  svr_->Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
    std::shared_future<void> gate;
    {
      std::lock_guard<std::mutex> g{mtx_};
      paths_.push_back(req.path);
      bodies_.push_back(req.body);
      res.status = status_;
      res.set_content(body_, "application/json");
      gate = gate_;
      peak_ = std::max(peak_, ++active_);
    }
    cv_.notify_all();
    if (gate.valid())
      gate.wait();
    std::lock_guard<std::mutex> g{mtx_};
    --active_;
  });
  port_ = svr_->bind_to_any_port("127.0.0.1");
  REQUIRE(port_ > 0);
  ::listen(listen_fd, 4096);
  thread_ = std::thread([this] { svr_->listen_after_bind(); });
  // `stop` is a no-op until httplib runs its accept loop (0.11 has no
  // wait_until_ready()): wait for the pool, made as that loop starts.
  std::unique_lock<std::mutex> g{mtx_};
  REQUIRE(cv_.wait_for(g, std::chrono::seconds(10), [this] { return pool_ready_; }));
}

ignition_stub::~ignition_stub() {
  release();
  svr_->stop();
  thread_.join();
}

void ignition_stub::answer(int status, std::string body) {
  std::lock_guard<std::mutex> g{mtx_};
  status_ = status;
  body_ = std::move(body);
}

void ignition_stub::hold() {
  std::lock_guard<std::mutex> g{mtx_};
  gate_ = promise_.get_future().share();
}

void ignition_stub::release() {
  std::lock_guard<std::mutex> g{mtx_};
  if (gate_.valid() && !released_) {
    released_ = true;
    promise_.set_value();
  }
}

bool ignition_stub::wait_active(int n, std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> g{mtx_};
  return cv_.wait_for(g, limit, [&] { return active_ >= n; });
}

int ignition_stub::peak() const {
  std::lock_guard<std::mutex> g{mtx_};
  return peak_;
}

std::string ignition_stub::url(const std::string& prefix) const {
  return (tls_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port_) + prefix;
}

std::vector<std::string> ignition_stub::paths() const {
  std::lock_guard<std::mutex> g{mtx_};
  return paths_;
}

std::vector<std::string> ignition_stub::bodies() const {
  std::lock_guard<std::mutex> g{mtx_};
  return bodies_;
}

boost::json::value ignition_stub::last_body() const {
  std::lock_guard<std::mutex> g{mtx_};
  REQUIRE(!bodies_.empty());
  return boost::json::parse(bodies_.back());
}

} // namespace stepwise::test
