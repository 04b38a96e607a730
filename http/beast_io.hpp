#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>

#include "http/bounded_body.hpp"

namespace stepwise::http {

/// The parser of one request; its body keeps at most the server's bound.
using request_parser = boost::beast::http::request_parser<bounded_body>;

/// One accepted connection's byte stream, plain TCP or TLS, behind one
/// interface, so that the connection logic (beast_connection) is written
/// once and compiled once. Every completion runs on the connection's strand
/// (`executor`). A deadline set with `expires_after` applies to the reads
/// and writes started after it, and closes the socket when it passes (Beast
/// `tcp_stream`); a read pending meanwhile keeps its own deadline.
class connection_io {
public:
  using handler = std::function<void(boost::system::error_code, size_t)>;
  using duration = std::chrono::steady_clock::duration;

  virtual ~connection_io() = default;

  virtual boost::asio::any_io_executor executor() = 0;

  /// TLS: the server side of the handshake; plain: completes at once.
  virtual void handshake(handler h) = 0;

  virtual void read_some(boost::asio::mutable_buffer buf, handler h) = 0;

  /// Reads until `p` has the whole head.
  virtual void read_header(boost::beast::flat_buffer& buf, request_parser& p, handler h) = 0;

  /// Reads until `p` has the whole message.
  virtual void read_body(boost::beast::flat_buffer& buf, request_parser& p, handler h) = 0;

  /// Writes all of `bufs` (which must stay valid until `h` runs).
  virtual void write(std::vector<boost::asio::const_buffer> bufs, handler h) = 0;

  virtual void expires_after(duration d) = 0;

  virtual void expires_never() = 0;

  /// Plain: sends FIN (the client reads to the end of the answer, then
  /// sees the close). TLS: nothing (a FIN under TLS reads as truncation).
  virtual void shutdown_send() = 0;

  /// Closes the socket; pending operations complete with an error.
  virtual void close() = 0;

  virtual boost::asio::ip::tcp::endpoint remote() const = 0;

  virtual boost::asio::ip::tcp::endpoint local() const = 0;
};

/// Returns the plain stream of `s` (whose executor is its strand).
std::unique_ptr<connection_io> make_plain_io(boost::asio::ip::tcp::socket s);

/// Returns the TLS stream of `s`; `ctx` must outlive it.
std::unique_ptr<connection_io> make_tls_io(boost::asio::ip::tcp::socket s,
                                           boost::asio::ssl::context& ctx);

} // namespace stepwise::http
