#include "bench/task_workers.hpp"

#include <chrono>
#include <cstdio>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

namespace stepwise::bench {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

struct task_workers::shared {
  std::string host;
  std::string token;
  std::string queue;
  size_t max = 1;
  bool batch = false;
  std::function<void(const json::object&)> on_task;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t>* completed = nullptr;
  std::atomic<uint64_t>* errors = nullptr;
};

namespace {

/// One worker: poll, answer what came, poll again, until told to stop.
class worker : public std::enable_shared_from_this<worker> {
public:
  worker(asio::io_context& io, task_workers::shared& s, size_t k)
    : sock_(io),
      pause_(io),
      s_(s),
      poll_body_(json::serialize(json::object{{"queue", s.queue},
                                              {"worker", "w-" + std::to_string(k)},
                                              {"max", s.max},
                                              {"wait", "1s"}})) {
    // nop
  }

  void start(const tcp::endpoint& at) {
    sock_.async_connect(at, [self = shared_from_this()](error_code ec) {
      if (ec) {
        ++*self->s_.errors;
        return;
      }
      self->sock_.set_option(tcp::no_delay{true}, ec);
      self->poll();
    });
  }

private:
  using then_fn = void (worker::*)(int status, std::string& body);

  void poll() {
    if (!s_.stop)
      send("/api/v1/tasks/poll", poll_body_, &worker::on_polled);
  }

  void on_polled(int status, std::string& body) {
    if (status != 200) {
      ++*s_.errors;
      pause_.expires_after(std::chrono::milliseconds(10));
      pause_.async_wait([self = shared_from_this()](error_code) { self->poll(); });
      return;
    }
    auto got = json::parse(body);
    tokens_.clear();
    next_ = 0;
    for (auto& task : got.at("tasks").as_array()) {
      if (s_.on_task)
        s_.on_task(task.as_object());
      tokens_.emplace_back(task.at("token").as_string());
    }
    if (!s_.batch || tokens_.empty())
      return answer_next();
    json::array answers;
    for (auto& t : tokens_)
      answers.push_back(json::object{{"token", t}});
    send("/api/v1/tasks/complete", json::serialize(json::object{{"tasks", std::move(answers)}}),
         &worker::on_batch_answered);
  }

  void on_batch_answered(int status, std::string& body) {
    if (status != 200) {
      *s_.errors += tokens_.size();
    } else {
      auto fates = json::parse(body);
      for (auto& item : fates.at("items").as_array())
        ++*(item.as_object().contains("accepted") ? s_.completed : s_.errors);
    }
    poll();
  }

  void answer_next() {
    if (next_ == tokens_.size())
      return poll();
    send("/api/v1/tasks/" + tokens_[next_++] + "/complete", "{}", &worker::on_answered);
  }

  void on_answered(int status, std::string&) {
    ++*(status == 200 ? s_.completed : s_.errors);
    answer_next();
  }

  /// POSTs `body` to `path`; `then` gets the answer. A broken connection
  /// ends this worker (its tasks time out on the server, as a dead
  /// worker's do).
  void send(const std::string& path, std::string body, then_fn then) {
    req_ = {http::verb::post, path, 11};
    req_.set(http::field::host, s_.host);
    req_.set(http::field::content_type, "application/json");
    if (!s_.token.empty())
      req_.set(http::field::authorization, "Bearer " + s_.token);
    req_.keep_alive(true);
    req_.body() = std::move(body);
    req_.prepare_payload();
    http::async_write(sock_, req_, [self = shared_from_this(), then](error_code ec, size_t) {
      if (ec)
        return self->broke(ec);
      self->res_ = {};
      http::async_read(self->sock_, self->buf_, self->res_, [self, then](error_code ec2, size_t) {
        if (ec2)
          return self->broke(ec2);
        ((*self).*then)(static_cast<int>(self->res_.result_int()), self->res_.body());
      });
    });
  }

  void broke(error_code ec) {
    ++*s_.errors;
    if (!s_.stop)
      std::fprintf(stderr, "stepwise-bench: a task worker's connection broke: %s\n",
                   ec.message().c_str());
  }

  tcp::socket sock_;
  asio::steady_timer pause_;
  task_workers::shared& s_;
  std::string poll_body_;
  std::vector<std::string> tokens_;
  size_t next_ = 0;
  http::request<http::string_body> req_;
  http::response<http::string_body> res_;
  boost::beast::flat_buffer buf_;
};

} // namespace

task_workers::task_workers(const http_target& t, const std::string& queue, size_t n, size_t max,
                           bool batch, std::function<void(const json::object&)> on_task)
  : shared_(std::make_shared<shared>()) {
  unsigned short port = 0;
  auto& s = *shared_;
  s.token = t.token;
  s.batch = batch;
  s.on_task = std::move(on_task);
  s.completed = &completed;
  s.errors = &errors;
  s.queue = queue;
  s.max = max;
  if (!plain_http(t.url, s.host, port)) {
    std::fprintf(stderr, "stepwise-bench: the task workers need http://HOST:PORT, not %s\n",
                 t.url.c_str());
    errors += n;
    return;
  }
  thread_ = std::thread([sh = shared_, n, port] {
    asio::io_context io{1};
    tcp::resolver resolver{io};
    error_code ec;
    auto at = resolver.resolve(sh->host, std::to_string(port), ec);
    if (ec || at.empty()) {
      *sh->errors += n;
      return;
    }
    for (size_t k = 0; k < n; ++k)
      std::make_shared<worker>(io, *sh, k)->start(*at.begin());
    // Returns once every worker stopped: each ends the request under way
    // (a poll waits at most its 1 s) and sends none after `stop`.
    io.run();
  });
}

task_workers::~task_workers() {
  shared_->stop = true;
  if (thread_.joinable())
    thread_.join();
}

} // namespace stepwise::bench
