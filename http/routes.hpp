#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "engine/engine.hpp"
#include "http/auth.hpp"
#include "http/event_hub.hpp"
#include "http/request_metrics.hpp"
#include "http/router.hpp"
#include "http/sinks_routes.hpp"

namespace stepwise::http {

/// Everything the route handlers share. Owned by the server; outlives every
/// request.
struct route_context {
  stepwise::engine& eng;
  const limits& lim;
  std::shared_ptr<event_hub> hub;
  const request_metrics& requests;
  /// The outbox's sinks; empty without an outbox.
  const sinks_source& sinks;
  /// The bearer tokens (null: none): long polls and streams are bounded per
  /// token's name too.
  std::shared_ptr<const authenticator> auth;
  /// Returns how many HTTP connections are open (for `/metrics`).
  std::function<size_t()> connections;
};

/// Returns who makes `rq` (see `event::by`): the name of its token, or
/// `anonymous` on a server without tokens.
inline std::string caller_of(const route_context& ctx, const request& rq) {
  return caller_name(ctx.auth.get(), rq.raw.headers.get("Authorization"));
}

/// A route's handler: the router writes its errors, the context serves the
/// rest.
using route_handler = void (*)(const router& r, const route_context& ctx, request& rq,
                               server_response& res);

/// Adds `method pattern`, answered by `h`. The router outlives its routes,
/// so the handler may keep a reference to it. `never_blocks`: see
/// `router::route::never_blocks`.
inline void add_route(router& r, const route_context& ctx, std::string method, std::string pattern,
                      route_handler h, bool never_blocks = false) {
  const router* rp = &r;
  r.add(
    std::move(method), std::move(pattern),
    [rp, ctx, h](request& rq, server_response& res) { h(*rp, ctx, rq, res); }, never_blocks);
}

/// `POST /api/v1/operations/{id}/signals/{name}`.
void add_signals_routes(router& r, const route_context& ctx);

/// `POST /api/v1/operations`, `GET /api/v1/operations[/{id}]`,
/// `POST /api/v1/operations/{id}/cancel|retry`.
void add_operations_routes(router& r, const route_context& ctx);

/// `POST|GET /api/v1/schedules`, `GET|PUT|DELETE /api/v1/schedules/{id}`,
/// `POST /api/v1/schedules/{id}/pause|resume|trigger`.
void add_schedules_routes(router& r, const route_context& ctx);

/// `GET /api/v1/workflows[/{name}]`.
void add_workflows_routes(router& r, const route_context& ctx);

/// `GET /api/v1/events` (long poll) and `GET /api/v1/events/stream` (SSE).
void add_events_routes(router& r, const route_context& ctx);

/// `GET /metrics` (Prometheus text format).
void add_metrics_routes(router& r, const route_context& ctx);

/// `GET /healthz`, `GET /readyz`.
void add_health_routes(router& r, const route_context& ctx);

/// `GET /api/v1/sinks` (http/sinks_routes.cpp).
void add_sinks_routes(router& r, const route_context& ctx);

/// `POST /api/v1/tasks/poll`, `POST /api/v1/tasks/{token}/heartbeat|
/// complete|fail`, `GET /api/v1/tasks/queues` (http/tasks_routes.cpp).
void add_tasks_routes(router& r, const route_context& ctx);

/// `GET /api/v1/cluster` (http/cluster_routes.cpp).
void add_cluster_routes(router& r, const route_context& ctx);

/// `GET /api/v1/openapi.json`.
void add_openapi_routes(router& r, const route_context& ctx);

} // namespace stepwise::http
