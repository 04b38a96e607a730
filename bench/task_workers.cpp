#include "bench/task_workers.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include "bench/json_post.hpp"

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

/// `body` as a JSON object; empty when it is not one (then what it should
/// hold counts as errors rather than throwing out of the workers' thread).
json::object parse_object(const std::string& body) {
  error_code ec;
  auto v = json::parse(body, ec);
  return !ec && v.is_object() ? std::move(v.get_object()) : json::object{};
}

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
    tokens_.clear();
    next_ = 0;
    auto got = parse_object(body);
    auto* tasks = got.if_contains("tasks");
    for (auto& task : tasks && tasks->is_array() ? tasks->get_array() : json::array{}) {
      auto* token = task.is_object() ? task.get_object().if_contains("token") : nullptr;
      if (!token || !token->is_string()) {
        ++*s_.errors; // not a task a poll hands out: nothing to answer
        continue;
      }
      if (s_.on_task)
        s_.on_task(task.get_object());
      tokens_.emplace_back(token->get_string());
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
      auto fates = parse_object(body);
      auto* items = fates.if_contains("items");
      size_t accepted = 0;
      if (items && items->is_array())
        for (auto& item : items->get_array())
          accepted += item.is_object() && item.get_object().contains("accepted") ? 1 : 0;
      *s_.completed += accepted;
      *s_.errors += tokens_.size() - std::min(accepted, tokens_.size());
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
    req_ = json_post(s_.host, s_.token, path, std::move(body));
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
  : shared_(std::make_unique<shared>()) {
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
  // The thread ends before the set does (the destructor joins it).
  thread_ = std::thread([sh = shared_.get(), n, port] {
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
