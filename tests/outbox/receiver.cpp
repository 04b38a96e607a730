#include "tests/outbox/receiver.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace stepwise::test {

namespace {

// Computed here with OpenSSL directly rather than with the code under
// test (outbox/signature), so that the test checks it.
std::string expected_signature(const std::string& key, const std::string& body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &len);
  std::string hex = "sha256=";
  char buf[3];
  for (unsigned int i = 0; i < len; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", mac[i]);
    hex += buf;
  }
  return hex;
}

} // namespace

webhook_receiver::webhook_receiver(std::string secret) : secret_(std::move(secret)) {
  svr_.Post("/hook",
            [this](const httplib::Request& req, httplib::Response& res) { on_post(req, res); });
  port_ = svr_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread{[this] { svr_.listen_after_bind(); }};
}

webhook_receiver::~webhook_receiver() {
  hold(false);
  svr_.stop();
  thread_.join();
}

std::string webhook_receiver::url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/hook";
}

void webhook_receiver::hold(bool on) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    held_ = on;
  }
  cv_.notify_all();
}

size_t webhook_receiver::holding() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return holding_;
}

void webhook_receiver::on_post(const httplib::Request& req, httplib::Response& res) {
  {
    std::unique_lock<std::mutex> guard{mtx_};
    if (held_) {
      ++holding_;
      cv_.wait(guard, [&] { return !held_; });
      --holding_;
      res.status = 503;
      return;
    }
  }
  auto n = ++calls_;
  auto every = fail_every_.load();
  if (down_.load() || (every > 0 && n % static_cast<size_t>(every) == 0)) {
    res.status = down_.load() ? 503 : 500;
    return;
  }
  if (!secret_.empty()
      && req.get_header_value("X-Stepwise-Signature") != expected_signature(secret_, req.body))
    ++bad_signatures_;
  boost::json::error_code ec;
  auto body = boost::json::parse(req.body, ec);
  if (ec) {
    res.status = 400;
    return;
  }
  std::lock_guard<std::mutex> guard{mtx_};
  if (body.is_array()) {
    for (auto& x : body.as_array())
      accepted_.push_back(x.as_object());
  } else {
    accepted_.push_back(body.as_object());
  }
  last_headers_ = req.headers;
  res.status = 204;
  cv_.notify_all();
}

std::vector<boost::json::object> webhook_receiver::accepted() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return accepted_;
}

httplib::Headers webhook_receiver::last_headers() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return last_headers_;
}

bool webhook_receiver::wait_for(size_t n, std::chrono::seconds limit) const {
  std::unique_lock<std::mutex> guard{mtx_};
  return cv_.wait_for(guard, limit, [&] { return accepted_.size() >= n; });
}

} // namespace stepwise::test
