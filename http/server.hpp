#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "engine/engine.hpp"
#include "http/auth.hpp"
#include "http/event_hub.hpp"
#include "http/limits.hpp"
#include "http/request_metrics.hpp"
#include "http/router.hpp"
#include "http/sinks_routes.hpp"

namespace stepwise::http {

class beast_server;

/// How the HTTP gateway listens and how much it lets one client take.
struct server_config {
  std::string host = "127.0.0.1";
  /// 0: any free port (see `server::port`).
  int port = 8080;
  /// Worker threads that run route handlers (which block on the engine).
  /// Connections, long polls and event streams hold none while they wait.
  size_t threads = 64;
  /// Requests that may wait for a worker; beyond, 503 `overloaded` at once.
  size_t queue_limit = 4096;
  /// Threads that do the network I/O of every connection.
  size_t io_threads = 2;
  limits lim;
  /// A request's head must arrive whole within this long of its first byte,
  /// its body within as long again; a slower client is dropped. (A request
  /// must begin within `keep_alive_timeout`.)
  std::chrono::seconds read_timeout{10};
  /// An answer (or one write of a stream) must be taken within this long.
  std::chrono::seconds write_timeout{10};
  /// An idle keep-alive connection is closed after this long.
  std::chrono::seconds keep_alive_timeout{5};
  /// Requests per connection before it is closed.
  size_t keep_alive_max = 100000;
  /// Connections the kernel queues before they are accepted: a small
  /// backlog drops the SYNs of clients that connect at once (each retried
  /// after a second).
  int backlog = 1024;
  /// Events kept in memory for tailing readers (single-writer stores only).
  size_t event_cache = 16384;
  /// The outbox's sinks, for `GET /api/v1/sinks` and `/metrics`; empty:
  /// no outbox (the route lists none).
  sinks_source sinks;
  /// Bearer tokens every route but the open ones asks for (http/auth.hpp);
  /// null: no route asks for any (loopback use).
  std::shared_ptr<const authenticator> auth;
  /// `/metrics` asks for a read token too.
  bool metrics_auth = false;
  /// Both set: serve HTTPS with this certificate chain and private key
  /// (PEM files).
  std::string tls_cert;
  std::string tls_key;
  /// Called after each answer (access log); empty: none.
  std::function<void(const server_request&, const server_response&)> access_log;
};

/// The HTTP gateway: a Boost.Beast server (beast_server) in front of an
/// engine, routes written against its `server_request` and
/// `server_response` (http/server_request.hpp, http/server_response.hpp).
/// Translation only: each request becomes engine calls (which wait for the
/// dispatcher with a timeout) on a worker thread; no HTTP thread touches
/// operation state.
///
/// Lifecycle: construct (registers every `/api/v1` route, `/healthz`,
/// `/readyz`, `/metrics`), optionally add routes through `routes()` (the
/// `/api/infrastructure/*` routes mount there), `bind`, `start`, `stop`.
/// The engine must outlive the server.
class server {
public:
  server(caf::actor_system& sys, stepwise::engine& eng, server_config cfg);

  server(const server&) = delete;
  server& operator=(const server&) = delete;

  /// Stops serving if still running.
  ~server();

  /// Returns the router, to mount more routes before `start`.
  router& routes() {
    return router_;
  }

  /// Returns whether it serves HTTPS.
  bool tls() const {
    return !cfg_.tls_cert.empty();
  }

  /// Binds the listening socket. Returns the bound port; fails when the
  /// address is taken or the TLS certificate or key cannot be used.
  [[nodiscard]] caf::expected<int> bind();

  /// Serves on background threads; returns when it accepts connections.
  void start();

  /// Stops accepting, ends long polls and streams, closes every
  /// connection, waits for in-flight requests (whose answers are still
  /// sent) and joins the threads. Idempotent.
  void stop();

  /// Returns the bound port (after `bind`).
  int port() const {
    return port_;
  }

  const request_metrics& requests() const {
    return requests_;
  }

  const server_config& config() const {
    return cfg_;
  }

  /// Returns how many connections are open.
  size_t connections() const;

private:
  caf::actor_system& sys_;
  stepwise::engine& eng_;
  server_config cfg_;
  router router_;
  request_metrics requests_;
  std::shared_ptr<event_hub> hub_;
  event_listener feeder_;
  std::unique_ptr<beast_server> net_;
  int port_ = -1;
  bool stopped_ = false;
};

} // namespace stepwise::http
