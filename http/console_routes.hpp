#pragma once

#include "http/routes.hpp"

namespace stepwise::http {

/// The web console: `GET /` (redirects to `/ui/`), `GET /ui` (the same),
/// `GET /ui/` (the page) and `GET /ui/{asset}` (its scripts and styles,
/// compiled into the binary from `web/`). Open routes: they hold no data.
void add_console_routes(router& r, const route_context& ctx);

/// What the console reads beyond the `/api/v1` basics:
/// `GET /api/v1/operations/{id}/events` (the operation's timeline) and
/// `GET /api/v1/events/latest` (where a live stream should start).
void add_operation_events_routes(router& r, const route_context& ctx);

} // namespace stepwise::http
