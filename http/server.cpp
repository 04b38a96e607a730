#include "http/server.hpp"

#include <sys/socket.h>

#include <caf/actor_system.hpp>
#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

#include "engine/errc.hpp"
#include "http/console_routes.hpp"
#include "http/routes.hpp"

namespace stepwise::http {

server::server(caf::actor_system& sys, stepwise::engine& eng, server_config cfg)
  : sys_(sys), eng_(eng), cfg_(std::move(cfg)), router_(cfg_.lim, &requests_) {
  // Only a single writer pushes every event in commit order; see event_hub.
  auto cache = eng_.store_backend() == "sqlite" ? cfg_.event_cache : 0;
  hub_ = std::make_shared<event_hub>(cache);
  feeder_ = spawn_event_feeder(sys_, hub_);
  eng_.subscribe(feeder_);
  route_context ctx{eng_, cfg_.lim, hub_, requests_, cfg_.sinks};
  add_operations_routes(router_, ctx);
  add_signals_routes(router_, ctx);
  add_schedules_routes(router_, ctx);
  add_workflows_routes(router_, ctx);
  add_events_routes(router_, ctx);
  add_metrics_routes(router_, ctx);
  add_health_routes(router_, ctx);
  add_sinks_routes(router_, ctx);
  add_openapi_routes(router_, ctx);
  add_operation_events_routes(router_, ctx);
  add_console_routes(router_, ctx);
  if (cfg_.auth) {
    auto auth = cfg_.auth;
    auto metrics_auth = cfg_.metrics_auth;
    router_.add_guard([auth, metrics_auth](const httplib::Request& req, const router::route& r,
                                           httplib::Response& res) {
      auto err = auth->check(access_for(req.method, r.pattern, metrics_auth),
                             req.get_header_value("Authorization"));
      if (err && err->status == 401)
        res.set_header("WWW-Authenticate", bearer_challenge);
      return err;
    });
  }
  if (tls())
    svr_ =
      std::make_unique<opened<httplib::SSLServer>>(cfg_.tls_cert.c_str(), cfg_.tls_key.c_str());
  else
    svr_ = std::make_unique<opened<httplib::Server>>();
  install_handlers();
}

server::~server() {
  stop();
}

void server::install_handlers() {
  auto threads = cfg_.threads;
  svr_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // httplib's defaults (Nagle on, 5 requests per connection) cost two orders
  // of magnitude of throughput on keep-alive connections.
  svr_->set_tcp_nodelay(true);
  // httplib sets SO_REUSEPORT, which lets a second server bind the same port
  // and silently take half of its connections. SO_REUSEADDR only allows a
  // quick restart over connections in TIME_WAIT.
  svr_->set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  svr_->set_keep_alive_max_count(cfg_.keep_alive_max);
  svr_->set_keep_alive_timeout(cfg_.keep_alive_timeout.count());
  svr_->set_read_timeout(cfg_.read_timeout.count(), 0);
  svr_->set_write_timeout(cfg_.write_timeout.count(), 0);
  svr_->set_payload_max_length(cfg_.lim.max_body_bytes);
  svr_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return router_.pre_route(req, res) ? httplib::Server::HandlerResponse::Handled
                                       : httplib::Server::HandlerResponse::Unhandled;
  });
  svr_->set_error_handler(httplib::Server::HandlerWithResponse(
    [this](const httplib::Request& req, httplib::Response& res) {
      return router_.answer_error(req, res) ? httplib::Server::HandlerResponse::Handled
                                            : httplib::Server::HandlerResponse::Unhandled;
    }));
  svr_->set_exception_handler(
    [this](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
      res.headers.erase("Content-Type");
      res.body.clear();
      router_.write(req.path, res, internal_error("request handling failed"));
      router_.record(req, res);
    });
  if (cfg_.access_log)
    svr_->set_logger(cfg_.access_log);
  // One catch-all per method: the router does the matching, so that 404 and
  // 405 follow one rule for every path.
  auto plain = [this](const httplib::Request& req, httplib::Response& res) {
    router_.serve(req, res, nullptr);
  };
  auto with_body = [this](const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader& reader) {
    router_.serve(req, res, &reader);
  };
  svr_->Get(".*", plain);
  svr_->Options(".*", plain);
  svr_->Post(".*", with_body);
  svr_->Put(".*", with_body);
  svr_->Patch(".*", with_body);
  svr_->Delete(".*", with_body);
}

socket_t server::listening_socket() const {
  if (tls())
    return static_cast<const opened<httplib::SSLServer>&>(*svr_).listening_socket();
  return static_cast<const opened<httplib::Server>&>(*svr_).listening_socket();
}

caf::expected<int> server::bind() {
  // Named, not quoted: a key file's path is no secret, its content is.
  if (!svr_->is_valid())
    return make_error(errc::invalid_argument, "cannot serve HTTPS with certificate " + cfg_.tls_cert
                                                + " and key " + cfg_.tls_key
                                                + " (unreadable, not PEM, or not a matching pair)");
  if (cfg_.port == 0) {
    port_ = svr_->bind_to_any_port(cfg_.host);
    if (port_ <= 0)
      return make_error(errc::invalid_argument, "cannot bind to " + cfg_.host + " on any port");
  } else {
    if (!svr_->bind_to_port(cfg_.host, cfg_.port))
      return make_error(errc::invalid_argument, "cannot listen on " + cfg_.host + ":"
                                                  + std::to_string(cfg_.port)
                                                  + " (address in use or not local?)");
    port_ = cfg_.port;
  }
  // Linux updates the backlog of a socket that listens already.
  ::listen(listening_socket(), cfg_.backlog);
  return port_;
}

void server::start() {
  thread_ = std::thread([this] {
    svr_->listen_after_bind();
    listen_returned_ = true;
  });
  // httplib 0.11 has no wait_until_ready().
  while (!svr_->is_running() && !listen_returned_)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void server::stop() {
  if (stopped_)
    return;
  stopped_ = true;
  hub_->close();
  svr_->stop();
  if (thread_.joinable())
    thread_.join();
  caf::anon_send_exit(feeder_, caf::exit_reason::user_shutdown);
}

} // namespace stepwise::http
