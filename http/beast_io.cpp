#include "http/beast_io.hpp"

#include <type_traits>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

namespace stepwise::http {

namespace detail {

namespace beast = boost::beast;
namespace net = boost::asio;

using tls_stream = beast::ssl_stream<beast::tcp_stream>;

template <class Stream>
class stream_io final : public connection_io {
public:
  static constexpr bool is_tls = std::is_same_v<Stream, tls_stream>;

  template <class... Ts>
  explicit stream_io(Ts&&... xs) : stream_(std::forward<Ts>(xs)...) {
    // nop
  }

  net::any_io_executor executor() override {
    return stream_.get_executor();
  }

  void handshake(handler h) override {
    if constexpr (is_tls)
      stream_.async_handshake(net::ssl::stream_base::server,
                              [h = std::move(h)](boost::system::error_code ec) { h(ec, 0); });
    else
      net::post(stream_.get_executor(), [h = std::move(h)] { h({}, 0); });
  }

  void read_some(net::mutable_buffer buf, handler h) override {
    stream_.async_read_some(buf, std::move(h));
  }

  void read_header(beast::flat_buffer& buf, request_parser& p, handler h) override {
    beast::http::async_read_header(stream_, buf, p, std::move(h));
  }

  void read_body(beast::flat_buffer& buf, request_parser& p, handler h) override {
    beast::http::async_read(stream_, buf, p, std::move(h));
  }

  void write(std::vector<net::const_buffer> bufs, handler h) override {
    net::async_write(stream_, std::move(bufs), std::move(h));
  }

  void expires_after(duration d) override {
    tcp().expires_after(d);
  }

  void expires_never() override {
    tcp().expires_never();
  }

  void shutdown_send() override {
    if constexpr (!is_tls) {
      boost::system::error_code ignored;
      tcp().socket().shutdown(net::ip::tcp::socket::shutdown_send, ignored);
    }
  }

  void close() override {
    tcp().close();
  }

  net::ip::tcp::endpoint remote() const override {
    boost::system::error_code ec;
    return tcp().socket().remote_endpoint(ec);
  }

  net::ip::tcp::endpoint local() const override {
    boost::system::error_code ec;
    return tcp().socket().local_endpoint(ec);
  }

private:
  beast::tcp_stream& tcp() {
    return beast::get_lowest_layer(stream_);
  }

  const beast::tcp_stream& tcp() const {
    return beast::get_lowest_layer(stream_);
  }

  Stream stream_;
};

} // namespace detail

std::unique_ptr<connection_io> make_plain_io(boost::asio::ip::tcp::socket s) {
  return std::make_unique<detail::stream_io<boost::beast::tcp_stream>>(std::move(s));
}

std::unique_ptr<connection_io> make_tls_io(boost::asio::ip::tcp::socket s,
                                           boost::asio::ssl::context& ctx) {
  return std::make_unique<detail::stream_io<detail::tls_stream>>(std::move(s), ctx);
}

} // namespace stepwise::http
