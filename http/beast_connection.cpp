// A connection's requests: reading heads and bodies within their
// deadlines and bounds, and handing each to the router on a worker.

#include "http/beast_connection.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>

#include "http/beast_request.hpp"
#include "http/server.hpp"

namespace stepwise::http {

namespace {

namespace bh = boost::beast::http;

// Bytes one read of an idle connection takes at most.
constexpr size_t idle_read = 4096;

bool is_parse_error(const boost::system::error_code& ec) {
  return ec.category() == bh::make_error_code(bh::error::bad_method).category()
         && ec != bh::error::end_of_stream && ec != bh::error::partial_message
         && ec != bh::error::need_more;
}

} // namespace

beast_connection::beast_connection(std::unique_ptr<connection_io> io, const connection_env& env)
  : io_(std::move(io)), env_(env), strand_(io_->executor()), timer_(strand_) {
  // nop
}

void beast_connection::start() {
  boost::asio::post(strand_, [self = shared_from_this()] {
    if (self->env_.stopping)
      return self->abort();
    self->io_->expires_after(self->env_.cfg.read_timeout);
    self->io_->handshake([self](error_code ec, size_t) {
      if (ec)
        return self->abort();
      self->await_request();
    });
  });
}

void beast_connection::shutdown() {
  boost::asio::post(strand_, [self = shared_from_this()] {
    self->shutdown_asked_ = true;
    if (self->closed_)
      return;
    // An answer being made is still sent (and then the connection closes);
    // a long poll answers at once since the hub closed. A stream ends now.
    if (self->answering_ && !(self->later_ && self->later_->streaming()))
      return;
    self->abort();
  });
}

void beast_connection::await_request() {
  if (shutdown_asked_ || env_.stopping)
    return abort();
  parser_.emplace();
  // The head may be as long as the router's bound on header bytes plus the
  // longest target: beyond it, 431 without reading on.
  parser_->header_limit(
    static_cast<std::uint32_t>(env_.cfg.lim.max_header_bytes + max_target_bytes + 4096));
  // Beast checks a declared Content-Length against this while it reads the
  // head: beyond what is kept or drained, 413 at once (on_head).
  parser_->body_limit(std::max(env_.cfg.lim.max_drain_bytes, env_.cfg.lim.max_body_bytes));
  parser_->get().body().keep = env_.cfg.lim.max_body_bytes;
  if (buffer_.size() > 0)
    return read_head();
  // A request, the first one too, must begin within the keep-alive
  // period.
  io_->expires_after(env_.cfg.keep_alive_timeout);
  io_->read_some(buffer_.prepare(idle_read), [self = shared_from_this()](error_code ec, size_t n) {
    if (ec)
      return self->abort();
    self->buffer_.commit(n);
    self->read_head();
  });
}

void beast_connection::read_head() {
  // The whole head within `read_timeout` of its first byte, however slowly
  // it trickles in: a client that stalls mid-header is cut off here.
  io_->expires_after(env_.cfg.read_timeout);
  io_->read_header(buffer_, *parser_,
                   [self = shared_from_this()](error_code ec, size_t) { self->on_head(ec); });
}

void beast_connection::on_head(error_code ec) {
  if (ec == bh::error::header_limit)
    return refuse(431, true);
  if (ec == bh::error::body_limit)
    return refuse(413, true);
  if (ec && is_parse_error(ec))
    return refuse(400, true);
  if (ec)
    return abort();
  ex_ = std::make_shared<exchange>();
  ex_->req.started = std::chrono::steady_clock::now();
  keep_alive_ = parser_->keep_alive();
  if (auto status = to_server_request(parser_->get().base(), io_->remote(), io_->local(), ex_->req))
    return refuse(status, true);
  if (env_.routes.pre_route(ex_->req, ex_->res)) {
    answering_ = true;
    return send_answer();
  }
  if (parser_->is_done())
    return route();
  if (!boost::beast::iequals(ex_->req.headers.get("Expect"), "100-continue"))
    return read_body();
  // A body known to be too long is refused before the client sends it.
  if (auto len = parser_->content_length(); len && *len > env_.cfg.lim.max_body_bytes)
    return refuse(413, true);
  // The client waits for this before it sends the body.
  out_ = "HTTP/1.1 100 Continue\r\n\r\n";
  io_->expires_after(env_.cfg.write_timeout);
  io_->write({boost::asio::buffer(out_)}, [self = shared_from_this()](error_code ec, size_t) {
    if (ec)
      return self->abort();
    self->read_body();
  });
}

void beast_connection::read_body() {
  io_->expires_after(env_.cfg.read_timeout);
  io_->read_body(buffer_, *parser_,
                 [self = shared_from_this()](error_code ec, size_t) { self->on_body(ec); });
}

void beast_connection::on_body(error_code ec) {
  // Longer than is worth draining: answered, and the rest never read.
  if (ec == bh::error::body_limit)
    return refuse(413, true);
  if (ec && is_parse_error(ec))
    return refuse(400, true);
  if (ec)
    return abort();
  auto& body = parser_->get().body();
  // Read whole and dropped, so that the client, which sends before it
  // reads, sees the 413 on a connection that stays usable.
  if (body.total > env_.cfg.lim.max_body_bytes)
    return refuse(413, false);
  ex_->req.body = std::move(body.text);
  route();
}

void beast_connection::refuse(int status, bool close) {
  if (!ex_) {
    ex_ = std::make_shared<exchange>();
    ex_->req.started = std::chrono::steady_clock::now();
  }
  ex_->res = server_response{};
  ex_->res.status = status;
  env_.routes.answer_error(ex_->req, ex_->res);
  if (close)
    ex_->res.close_connection = true;
  answering_ = true;
  send_answer();
}

std::shared_ptr<stream_source> beast_connection::serve(exchange& ex) const {
  try {
    // Stopping: what waited for a worker is answered, not run (a stalled
    // store would otherwise hold the stop for every queued request).
    if (env_.stopping)
      env_.routes.write(ex.req.path, ex.res, shutting_down());
    else
      return env_.routes.serve(ex.req, ex.res);
  } catch (const std::exception& e) {
    ex.res = server_response{};
    env_.routes.write(ex.req.path, ex.res, internal_error(e.what()));
  }
  return nullptr;
}

void beast_connection::route() {
  answering_ = true;
  // A route that never blocks runs here: no hand-over to a worker and back.
  if (env_.routes.never_blocks(ex_->req.method, ex_->req.path))
    return on_routed(serve(*ex_));
  worker_pool::task t = [self = shared_from_this(), ex = ex_] {
    auto later = self->serve(*ex);
    boost::asio::post(self->strand_, [self, later = std::move(later)]() mutable {
      self->on_routed(std::move(later));
    });
  };
  if (env_.workers.try_post(t))
    return;
  // Every worker is busy and the queue is full (or the server stops): say
  // so at once rather than let the request wait without bound.
  if (env_.stopping)
    env_.routes.write(ex_->req.path, ex_->res, shutting_down());
  else
    env_.routes.write(ex_->req.path, ex_->res,
                      {503, "overloaded",
                       std::to_string(env_.workers.max_queued())
                         + " requests wait for a worker already (--http-threads "
                         + std::to_string(env_.cfg.threads) + "); retry"});
  env_.routes.record(ex_->req, ex_->res);
  send_answer();
}

void beast_connection::on_routed(std::shared_ptr<stream_source> later) {
  if (closed_)
    return;
  if (!later)
    return send_answer();
  later_ = std::move(later);
  if (later_->streaming())
    return start_stream();
  // A long poll may wait minutes: what parsing held goes back now (times
  // ten thousand waiting workers), unless the client already sent more.
  if (parser_ && parser_->is_done())
    parser_.reset();
  if (buffer_.size() == 0)
    buffer_.shrink_to_fit();
  std::string{}.swap(ex_->req.body);
  drive();
}

} // namespace stepwise::http
