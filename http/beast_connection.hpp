#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include "http/beast_io.hpp"
#include "http/router.hpp"
#include "http/server_request.hpp"
#include "http/server_response.hpp"
#include "http/stream_source.hpp"
#include "http/worker_pool.hpp"

namespace stepwise::http {

struct server_config;

/// What every connection of a server shares; owned by the server, outlives
/// its connections.
struct connection_env {
  const router& routes;
  worker_pool& workers;
  const server_config& cfg;
  /// Set once the server stops: answers close their connection.
  std::atomic<bool>& stopping;
};

/// One accepted connection: reads requests (each begun within the
/// keep-alive period, its head within `read_timeout` of its first byte, its
/// body within another), hands each to the router on a
/// worker thread, writes the answer, and keeps the connection for the next
/// request as HTTP/1.1 asks. A route's deferred answer (an event stream, a
/// long poll) is driven here, on the connection's strand, holding no thread
/// while it waits. Owned by its pending operations (shared_from_this).
class beast_connection : public std::enable_shared_from_this<beast_connection> {
public:
  beast_connection(std::unique_ptr<connection_io> io, const connection_env& env);

  beast_connection(const beast_connection&) = delete;
  beast_connection& operator=(const beast_connection&) = delete;

  /// Starts serving (TLS handshake first). Call once, on any thread.
  void start();

  /// Asks the connection to end: at once unless a request is being
  /// answered, else after that answer. Any thread.
  void shutdown();

private:
  /// One request and its answer, shared with the worker that routes it.
  struct exchange {
    server_request req;
    server_response res;
  };

  using error_code = boost::system::error_code;

  // -- reading requests (beast_connection.cpp) -------------------------------

  void await_request();
  void read_head();
  void on_head(error_code ec);
  void read_body();
  void on_body(error_code ec);
  /// Answers `status` for a request that could not be taken whole (the
  /// router's error body); `close` when what follows is unread.
  void refuse(int status, bool close);
  /// Runs the router on `ex` (on a worker, or here for a route that never
  /// blocks); returns what finishes the answer later, if anything.
  std::shared_ptr<stream_source> serve(exchange& ex) const;
  void route();
  void on_routed(std::shared_ptr<stream_source> later);

  // -- answering (beast_connection_answer.cpp) -------------------------------

  /// Writes `ex_`'s answer and then reads the next request or closes.
  void send_answer();
  void on_sent(error_code ec, bool close);
  void start_stream();
  void drive();
  void after_chunk(error_code ec, bool end);
  void wait_until(stream_source::clock_type::time_point t);
  void on_wake(uint64_t generation);
  void watch_client();
  void read_on_worker();
  void finish_later();
  /// Calls the access log once for the current exchange, and drops it.
  void log_answer();

  // -- closing ---------------------------------------------------------------

  /// Sends FIN and reads what the client still sends (a body left unread)
  /// for a short while, so that closing does not reset the connection
  /// before the client read the answer.
  void linger();
  void linger_read();
  void abort();

  /// Returns whether the answer being written is the connection's last.
  bool last_answer() const;

  std::unique_ptr<connection_io> io_;
  const connection_env& env_;
  /// The connection's strand (`io_`'s executor), kept to post to it from
  /// other threads.
  boost::asio::any_io_executor strand_;
  boost::beast::flat_buffer buffer_;
  std::optional<request_parser> parser_;
  std::shared_ptr<exchange> ex_;
  std::shared_ptr<stream_source> later_;
  boost::asio::steady_timer timer_;
  std::string out_;
  std::array<char, 512> scratch_;
  size_t served_ = 0;
  size_t lingered_ = 0;
  /// Bumped whenever a wait ends, so that the other wake-up of the same
  /// wait (the timer or the source) does nothing.
  uint64_t generation_ = 0;
  bool waiting_ = false;
  bool keep_alive_ = true;
  /// A request is with a worker or its answer is being written.
  bool answering_ = false;
  bool shutdown_asked_ = false;
  bool closed_ = false;
};

} // namespace stepwise::http
