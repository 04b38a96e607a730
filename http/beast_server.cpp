#include "http/beast_server.hpp"

#include <pthread.h>

#include <openssl/ssl.h>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include "engine/errc.hpp"
#include "http/beast_io.hpp"
#include "http/server.hpp"

namespace stepwise::http {

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

// How long accepting pauses when the process is out of file descriptors:
// connections wait in the backlog meanwhile instead of failing in a loop.
constexpr auto fd_pause = std::chrono::milliseconds(50);

// The longest `stop` waits for connections to finish what they write
// before it cuts them off.
constexpr auto stop_grace = std::chrono::seconds(2);

caf::expected<net::ssl::context> make_tls_context(const server_config& cfg) {
  // Named, not quoted: a key file's path is no secret, its content is.
  auto fail = [&] {
    return make_error(errc::invalid_argument, "cannot serve HTTPS with certificate " + cfg.tls_cert
                                                + " and key " + cfg.tls_key
                                                + " (unreadable, not PEM, or not a matching pair)");
  };
  net::ssl::context ctx{net::ssl::context::tls_server};
  ctx.set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2
                  | net::ssl::context::no_sslv3 | net::ssl::context::no_compression);
  SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
  boost::system::error_code ec;
  ctx.use_certificate_chain_file(cfg.tls_cert, ec);
  if (ec)
    return fail();
  ctx.use_private_key_file(cfg.tls_key, net::ssl::context::pem, ec);
  if (ec || SSL_CTX_check_private_key(ctx.native_handle()) != 1)
    return fail();
  return ctx;
}

} // namespace

beast_server::beast_server(const server_config& cfg, const router& routes)
  : cfg_(cfg), workers_(cfg.threads, cfg.queue_limit), env_{routes, workers_, cfg_, stopping_} {
  ioc_.emplace(static_cast<int>(std::max<size_t>(cfg_.io_threads, 1)));
}

beast_server::~beast_server() {
  stop();
}

caf::expected<int> beast_server::bind() {
  if (!cfg_.tls_cert.empty()) {
    auto ctx = make_tls_context(cfg_);
    if (!ctx)
      return std::move(ctx.error());
    tls_.emplace(std::move(*ctx));
  }
  auto where = cfg_.port == 0 ? "cannot bind to " + cfg_.host + " on any port"
                              : "cannot listen on " + cfg_.host + ":" + std::to_string(cfg_.port)
                                  + " (address in use or not local?)";
  boost::system::error_code ec;
  tcp::resolver resolver{*ioc_};
  auto found = resolver.resolve(cfg_.host, std::to_string(cfg_.port),
                                tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec)
    return make_error(errc::invalid_argument, where + ": " + ec.message());
  std::string why = "no address";
  for (auto& entry : found) {
    // On a strand: accepting (any I/O thread) and closing at stop never
    // touch the acceptor at once.
    tcp::acceptor a{net::make_strand(*ioc_)};
    auto ep = entry.endpoint();
    a.open(ep.protocol(), ec);
    // SO_REUSEADDR only allows a quick restart over connections in
    // TIME_WAIT; SO_REUSEPORT would let a second server
    // bind the same port and silently take half of the connections.
    if (!ec)
      a.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec)
      a.bind(ep, ec);
    if (!ec)
      a.listen(cfg_.backlog, ec);
    if (ec) {
      why = ec.message();
      continue;
    }
    auto port = a.local_endpoint(ec).port();
    acceptor_.emplace(std::move(a));
    accept_pause_.emplace(acceptor_->get_executor());
    return static_cast<int>(port);
  }
  return make_error(errc::invalid_argument, where + ": " + why);
}

void beast_server::start() {
  if (!acceptor_ || !threads_.empty())
    return;
  work_.emplace(ioc_->get_executor());
  net::post(acceptor_->get_executor(), [this] { accept(); });
  auto n = std::max<size_t>(cfg_.io_threads, 1);
  running_ = n;
  for (size_t i = 0; i < n; ++i)
    threads_.emplace_back([this, i] {
      pthread_setname_np(pthread_self(), ("sw-http-io-" + std::to_string(i)).c_str());
      ioc_->run();
      std::lock_guard<std::mutex> guard{mtx_};
      --running_;
      threads_done_.notify_all();
    });
}

void beast_server::accept() {
  // Each connection on a strand of its own: its handlers never run at once,
  // whichever I/O thread runs them.
  acceptor_->async_accept(
    net::make_strand(*ioc_), [this](boost::system::error_code ec, tcp::socket s) {
      if (ec == net::error::operation_aborted || stopping_)
        return;
      if (ec == net::error::no_descriptors || ec.value() == ENFILE
          || ec == net::error::no_buffer_space || ec == net::error::no_memory) {
        accept_pause_->expires_after(fd_pause);
        accept_pause_->async_wait([this](boost::system::error_code e) {
          if (!e && !stopping_)
            accept();
        });
        return;
      }
      if (!ec) {
        boost::system::error_code ignored;
        // Nagle's algorithm would hold each small answer back for the
        // client's delayed ACK.
        s.set_option(tcp::no_delay(true), ignored);
        auto io = tls_ ? make_tls_io(std::move(s), *tls_) : make_plain_io(std::move(s));
        auto c = std::make_shared<beast_connection>(std::move(io), env_);
        track(c);
        c->start();
      }
      accept();
    });
}

void beast_server::track(const std::shared_ptr<beast_connection>& c) {
  std::lock_guard<std::mutex> guard{mtx_};
  conns_.push_back(c);
  // Forget closed connections now and then, in time linear in the live
  // ones.
  if (conns_.size() >= 2 * pruned_size_ + 64) {
    conns_.erase(
      std::remove_if(conns_.begin(), conns_.end(),
                     [](const std::weak_ptr<beast_connection>& w) { return w.expired(); }),
      conns_.end());
    pruned_size_ = conns_.size();
  }
}

size_t beast_server::connections() const {
  std::lock_guard<std::mutex> guard{mtx_};
  size_t n = 0;
  for (auto& w : conns_)
    if (!w.expired())
      ++n;
  return n;
}

void beast_server::stop() {
  std::vector<std::weak_ptr<beast_connection>> open;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopped_)
      return;
    stopped_ = true;
    stopping_ = true;
    open.swap(conns_);
  }
  if (acceptor_)
    net::post(acceptor_->get_executor(), [this] {
      boost::system::error_code ignored;
      acceptor_->close(ignored);
      accept_pause_->cancel();
    });
  for (auto& w : open)
    if (auto c = w.lock())
      c->shutdown();
  open.clear();
  // Requests already read finish; their answers are still sent.
  workers_.stop();
  work_.reset();
  {
    std::unique_lock<std::mutex> guard{mtx_};
    if (!threads_done_.wait_for(guard, stop_grace, [this] { return running_ == 0; }))
      ioc_->stop();
  }
  for (auto& t : threads_)
    t.join();
  threads_.clear();
  // Connections still owned by handlers that never ran are destroyed with
  // the context, which closes their sockets.
  accept_pause_.reset();
  acceptor_.reset();
  ioc_.reset();
}

} // namespace stepwise::http
