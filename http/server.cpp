#include "http/server.hpp"

#include <caf/actor_system.hpp>
#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

#include "engine/errc.hpp"
#include "http/beast_server.hpp"
#include "http/console_routes.hpp"
#include "http/event_sources.hpp"
#include "http/routes.hpp"
#include "http/shared_event_feed.hpp"

namespace stepwise::http {

server::server(caf::actor_system& sys, stepwise::engine& eng, server_config cfg)
  : sys_(sys), eng_(eng), cfg_(std::move(cfg)), router_(cfg_.lim, &requests_) {
  // The hub's cache needs every event in commit order: the sole writer's
  // batches (SQLite), or on a shared store the one feed that orders what
  // every process wrote.
  auto shared = eng_.shares_store();
  auto cache = eng_.store_backend() == "sqlite" || shared ? cfg_.event_cache : 0;
  hub_ = std::make_shared<event_hub>(cache, append_sse_frame);
  feeder_ = shared ? spawn_shared_event_feed(sys_, eng_, hub_) : spawn_event_feeder(sys_, hub_);
  eng_.subscribe(feeder_);
  route_context ctx{
    eng_, cfg_.lim, hub_, requests_, cfg_.sinks, cfg_.auth, [this] { return connections(); }};
  add_operations_routes(router_, ctx);
  add_signals_routes(router_, ctx);
  add_schedules_routes(router_, ctx);
  add_workflows_routes(router_, ctx);
  add_events_routes(router_, ctx);
  add_metrics_routes(router_, ctx);
  add_health_routes(router_, ctx);
  add_sinks_routes(router_, ctx);
  add_cluster_routes(router_, ctx);
  add_tasks_routes(router_, ctx);
  add_openapi_routes(router_, ctx);
  add_operation_events_routes(router_, ctx);
  add_console_routes(router_, ctx);
  if (cfg_.auth) {
    auto auth = cfg_.auth;
    auto metrics_auth = cfg_.metrics_auth;
    router_.add_guard([auth, metrics_auth](const server_request& req, const router::route& r,
                                           server_response& res) {
      auto err = auth->check(access_for(req.method, r.pattern, metrics_auth),
                             req.headers.get("Authorization"));
      if (err && err->status == 401)
        res.headers.set("WWW-Authenticate", bearer_challenge);
      return err;
    });
  }
  net_ = std::make_unique<beast_server>(cfg_, router_);
}

server::~server() {
  stop();
}

caf::expected<int> server::bind() {
  auto port = net_->bind();
  if (port)
    port_ = *port;
  return port;
}

void server::start() {
  net_->start();
}

void server::stop() {
  if (stopped_)
    return;
  stopped_ = true;
  // First: streams and long polls see the hub closed and end.
  hub_->close();
  net_->stop();
  eng_.on_shared_events({}); // it holds the feed, which holds the engine
  caf::anon_send_exit(feeder_, caf::exit_reason::user_shutdown);
}

size_t server::connections() const {
  return net_ ? net_->connections() : 0;
}

} // namespace stepwise::http
