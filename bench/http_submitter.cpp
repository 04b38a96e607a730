#include "bench/http_submitter.hpp"

#include <algorithm>
#include <memory>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "bench/json_post.hpp"

namespace stepwise::bench {

namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

// What all connections share: the requests still to send.
struct batch {
  std::string host;
  std::string token;
  std::string path;
  size_t n = 0;
  size_t next = 0;
  const std::function<std::string(size_t)>* body = nullptr;
  const std::function<void(size_t)>* before = nullptr;
  const std::function<void(size_t, const submit_answer&)>* done = nullptr;
};

// One keep-alive connection: sends the next request of the batch as soon as
// the last one is answered, until none is left.
class connection : public std::enable_shared_from_this<connection> {
public:
  connection(asio::io_context& io, batch& b) : sock_(io), b_(b) {
    // nop
  }

  void start(const tcp::endpoint& at) {
    sock_.async_connect(at, [self = shared_from_this()](error_code ec) {
      if (ec)
        return;
      self->send_next();
    });
  }

private:
  void send_next() {
    if (b_.next >= b_.n)
      return;
    i_ = b_.next++;
    req_ = json_post(b_.host, b_.token, b_.path, (*b_.body)(i_));
    (*b_.before)(i_);
    http::async_write(sock_, req_, [self = shared_from_this()](error_code ec, size_t) {
      if (ec)
        return self->fail(ec);
      self->res_ = {};
      http::async_read(self->sock_, self->buf_, self->res_,
                       [self](error_code ec2, size_t) { self->on_read(ec2); });
    });
  }

  void on_read(error_code ec) {
    if (ec)
      return fail(ec);
    submit_answer a;
    a.status = static_cast<int>(res_.result_int());
    a.location = std::string(res_[http::field::location]);
    a.body = std::move(res_.body());
    (*b_.done)(i_, a);
    send_next();
  }

  // This request fails and the connection ends: the others go on with the
  // batch (what none sends fails when the run ends).
  void fail(error_code ec) {
    submit_answer a;
    a.body = ec.message();
    (*b_.done)(i_, a);
  }

  tcp::socket sock_;
  batch& b_;
  size_t i_ = 0;
  http::request<http::string_body> req_;
  http::response<http::string_body> res_;
  boost::beast::flat_buffer buf_;
};

} // namespace

void submit_all(const std::string& host, unsigned short port, const std::string& token,
                const std::string& path, size_t n, size_t connections,
                const std::function<std::string(size_t)>& body,
                const std::function<void(size_t)>& before,
                const std::function<void(size_t, const submit_answer&)>& done) {
  asio::io_context io{1};
  batch b;
  b.host = host;
  b.token = token;
  b.path = path;
  b.n = n;
  b.body = &body;
  b.before = &before;
  b.done = &done;
  tcp::resolver resolver{io};
  error_code ec;
  auto at = resolver.resolve(host, std::to_string(port), ec);
  if (!ec && !at.empty()) {
    for (size_t k = 0; k < std::max<size_t>(connections, 1); ++k)
      std::make_shared<connection>(io, b)->start(*at.begin());
    io.run();
  }
  submit_answer lost;
  lost.body = "no connection to " + host + ":" + std::to_string(port) + " was left to send it";
  for (; b.next < n; ++b.next) {
    before(b.next);
    done(b.next, lost);
  }
}

} // namespace stepwise::bench
