// A connection's answers: written whole, or driven from a stream source
// (event streams, long polls) holding no thread while it waits; and how
// the connection closes.

#include "http/beast_connection.hpp"

#include <algorithm>

#include <boost/asio/post.hpp>

#include "http/beast_response.hpp"
#include "http/server.hpp"

namespace stepwise::http {

namespace {

using steady_clock = std::chrono::steady_clock;

// How long a closing connection reads what the client still sends, and
// after how long a source whose read found every worker busy tries again.
constexpr auto linger_limit = std::chrono::seconds(2);
constexpr auto busy_retry = std::chrono::milliseconds(50);

// Chunks up to this size keep their buffer for the next write.
constexpr size_t small_chunk = 16 * 1024;

} // namespace

bool beast_connection::last_answer() const {
  return !keep_alive_ || ex_->res.close_connection || served_ + 1 >= env_.cfg.keep_alive_max
         || shutdown_asked_ || env_.stopping || (parser_ && !parser_->is_done());
}

void beast_connection::send_answer() {
  auto& ex = *ex_;
  connection_terms terms{last_answer(), env_.cfg.keep_alive_timeout, env_.cfg.keep_alive_max};
  out_ = render_head(ex.req, ex.res, terms, false);
  std::vector<boost::asio::const_buffer> bufs{boost::asio::buffer(out_)};
  if (ex.req.method != "HEAD" && !ex.res.body.empty())
    bufs.push_back(boost::asio::buffer(ex.res.body));
  io_->expires_after(env_.cfg.write_timeout);
  io_->write(std::move(bufs), [self = shared_from_this(), close = terms.close](
                                error_code ec, size_t) { self->on_sent(ec, close); });
}

void beast_connection::on_sent(error_code ec, bool close) {
  answering_ = false;
  ++served_;
  log_answer();
  if (ec)
    return abort();
  if (close)
    return linger();
  await_request();
}

void beast_connection::log_answer() {
  if (!ex_)
    return;
  auto ex = std::move(ex_);
  if (!env_.cfg.access_log)
    return;
  try {
    env_.cfg.access_log(ex->req, ex->res);
  } catch (...) {
    // A failing log line must not take the connection down with it.
  }
}

void beast_connection::start_stream() {
  // A stream reads no further request: what parsing held goes back now,
  // times ten thousand streams.
  parser_.reset();
  buffer_.clear();
  buffer_.shrink_to_fit();
  auto& ex = *ex_;
  bool head_only = ex.req.method == "HEAD";
  // A stream ends only when the server stops or a read fails; the client
  // reconnects then, so the connection ends with it.
  connection_terms terms{true, env_.cfg.keep_alive_timeout, env_.cfg.keep_alive_max};
  out_ = render_head(ex.req, ex.res, terms, true);
  io_->expires_after(env_.cfg.write_timeout);
  io_->write({boost::asio::buffer(out_)},
             [self = shared_from_this(), head_only](error_code ec, size_t) {
               if (ec || head_only)
                 return self->abort();
               self->watch_client();
               self->drive();
             });
}

void beast_connection::watch_client() {
  // A stream's client sends nothing more; a read that ends tells that it
  // left, at once, rather than at the next failed write.
  io_->expires_never();
  io_->read_some(boost::asio::buffer(scratch_), [self = shared_from_this()](error_code ec, size_t) {
    if (ec)
      return self->abort();
    if (!self->closed_)
      self->watch_client();
  });
}

void beast_connection::drive() {
  if (closed_ || !later_)
    return;
  waiting_ = false;
  auto generation = ++generation_;
  std::weak_ptr<beast_connection> weak = shared_from_this();
  std::function<void()> wake = [weak, strand = strand_, generation] {
    if (auto self = weak.lock())
      boost::asio::post(strand, [self, generation] { self->on_wake(generation); });
  };
  auto st = later_->next(steady_clock::now(), ex_->res, wake);
  if (st.read)
    return read_on_worker();
  if (later_->streaming() && (!st.data.empty() || st.end)) {
    out_.clear();
    append_chunk(out_, st.data);
    if (st.end)
      out_ += last_chunk;
    io_->expires_after(env_.cfg.write_timeout);
    io_->write({boost::asio::buffer(out_)},
               [self = shared_from_this(), end = st.end](error_code ec, size_t) {
                 self->after_chunk(ec, end);
               });
    return;
  }
  if (st.end)
    return finish_later();
  wait_until(st.wake_at);
}

void beast_connection::after_chunk(error_code ec, bool end) {
  if (ec || end)
    return abort();
  // A catch-up read may have made a large chunk; an idle stream keeps a
  // small buffer.
  if (out_.capacity() > small_chunk)
    std::string{}.swap(out_);
  drive();
}

void beast_connection::wait_until(stream_source::clock_type::time_point t) {
  waiting_ = true;
  timer_.expires_at(t);
  timer_.async_wait([self = shared_from_this(), generation = generation_](error_code ec) {
    if (!ec)
      self->on_wake(generation);
  });
}

void beast_connection::on_wake(uint64_t generation) {
  if (closed_ || !waiting_ || generation != generation_)
    return;
  waiting_ = false;
  timer_.cancel();
  drive();
}

void beast_connection::read_on_worker() {
  worker_pool::task t = [self = shared_from_this(), src = later_] {
    try {
      src->read();
    } catch (...) {
      // The source keeps no result: its next step asks to read again.
    }
    boost::asio::post(self->strand_, [self] { self->drive(); });
  };
  if (env_.workers.try_post(t))
    return;
  if (env_.stopping)
    return abort();
  wait_until(steady_clock::now() + busy_retry);
}

void beast_connection::finish_later() {
  later_.reset();
  timer_.cancel();
  env_.routes.record(ex_->req, ex_->res);
  send_answer();
}

void beast_connection::linger() {
  if (shutdown_asked_ || env_.stopping)
    return abort();
  io_->shutdown_send();
  // One deadline for all of the reads that follow.
  io_->expires_after(std::min<steady_clock::duration>(env_.cfg.read_timeout, linger_limit));
  linger_read();
}

void beast_connection::linger_read() {
  io_->read_some(boost::asio::buffer(scratch_),
                 [self = shared_from_this()](error_code ec, size_t n) {
                   self->lingered_ += n;
                   if (ec || self->lingered_ > self->env_.cfg.lim.max_drain_bytes)
                     return self->abort();
                   self->linger_read();
                 });
}

void beast_connection::abort() {
  if (closed_)
    return;
  closed_ = true;
  waiting_ = false;
  // Releases the source's admission ticket and hub subscription now, not
  // when the last pending operation lets go of the connection.
  later_.reset();
  timer_.cancel();
  io_->close();
  if (answering_)
    log_answer();
}

} // namespace stepwise::http
