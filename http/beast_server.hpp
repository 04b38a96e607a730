#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <caf/expected.hpp>

#include "http/beast_connection.hpp"
#include "http/router.hpp"
#include "http/worker_pool.hpp"

namespace stepwise::http {

struct server_config;

/// The network side of the HTTP gateway (Boost.Beast): one `io_context`
/// run by `io_threads` threads accepts connections and does all their
/// reads and writes asynchronously, so that an idle, slow or streaming
/// client holds a socket and a little memory but no thread. Routing runs
/// on a bounded pool of `threads` workers, since route handlers block on
/// the engine.
///
/// Lifecycle: `bind`, `start`, `stop` (idempotent; also on destruction).
/// `cfg` and `routes` must outlive it.
class beast_server {
public:
  beast_server(const server_config& cfg, const router& routes);

  beast_server(const beast_server&) = delete;
  beast_server& operator=(const beast_server&) = delete;

  ~beast_server();

  /// Opens the listening socket (and the TLS context when configured).
  /// Returns the bound port; fails when the address is taken or the TLS
  /// certificate or key cannot be used.
  [[nodiscard]] caf::expected<int> bind();

  /// Starts accepting and serving on the I/O threads.
  void start();

  /// Stops accepting, closes every connection (one whose answer is being
  /// made closes after sending it), waits for the workers, and joins the
  /// threads.
  void stop();

  /// Returns how many connections are open (for tests and metrics).
  size_t connections() const;

private:
  void accept();
  void track(const std::shared_ptr<beast_connection>& c);

  const server_config& cfg_;
  std::atomic<bool> stopping_{false};
  worker_pool workers_;
  connection_env env_;
  std::optional<boost::asio::io_context> ioc_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::optional<boost::asio::ssl::context> tls_;
  std::optional<boost::asio::ip::tcp::acceptor> acceptor_;
  std::optional<boost::asio::steady_timer> accept_pause_;
  std::vector<std::thread> threads_;
  mutable std::mutex mtx_;
  std::condition_variable threads_done_;
  size_t running_ = 0;
  std::vector<std::weak_ptr<beast_connection>> conns_;
  size_t pruned_size_ = 0;
  bool stopped_ = false;
};

} // namespace stepwise::http
