#pragma once

#include <memory>

#include "engine/engine.hpp"
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
};

/// `POST /api/v1/operations`, `GET /api/v1/operations[/{id}]`,
/// `POST /api/v1/operations/{id}/cancel|retry`.
void add_operations_routes(router& r, const route_context& ctx);

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

/// `GET /api/v1/openapi.json`.
void add_openapi_routes(router& r, const route_context& ctx);

} // namespace stepwise::http
