#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "http/errors.hpp"
#include "http/event_hub.hpp"
#include "http/routes.hpp"
#include "http/stream_source.hpp"

namespace stepwise::http {

/// A page of the log as a reader gets it.
struct events_read {
  std::vector<event> items;
  /// The retention horizon, read after the events.
  int64_t horizon = 0;
  /// Set instead of the events: a store read failed, or 410 `gone`.
  std::optional<api_error> error;
};

/// Returns whether a reader at `after` may have missed events that
/// retention removed: its cursor is below the horizon. `after` 0 asks for
/// the oldest event kept, which is never missed.
inline bool before_horizon(int64_t after, int64_t horizon) {
  return after > 0 && after < horizon;
}

/// Returns the events after `after` (at most `limit`): from the hub's cache
/// when it can prove it holds them all and none of them may have been
/// removed, else from the store (blocking). Then reads the horizon: a
/// removal the page missed committed before that read, so `after` below
/// it answers 410 `gone` even when the page itself came out whole.
events_read fetch_events(const route_context& ctx, int64_t after, size_t limit);

/// Returns the longest a waiting reader trusts the hub alone. With a store
/// that other processes write too (the hub does not cache then), their
/// events reach no hub here: the store is read again this often, which
/// bounds how late a long poll or stream sees another process's event.
std::chrono::steady_clock::duration poll_slice(const route_context& ctx);

/// Appends `e` as an event stream's frame: `id`, `event`, `data` lines.
void append_sse_frame(std::string& out, const event& e);

/// Sets `res` to the long poll's answer: `items` and `next_after` (the
/// last item's seq, or `after` when that is later).
void write_events_page(server_response& res, const std::vector<event>& items, int64_t after);

/// Returns a slot for one more long poll or stream of the request's
/// caller, or the 503 `too_many_waiters` that says which bound it hit
/// (`--max-streams`, or `--max-streams-per-token` for the caller's token).
std::optional<api_error> admit_waiter(const route_context& ctx, const server_request& req,
                                      std::shared_ptr<event_hub::ticket>& out);

/// Makes the long poll that found nothing yet: it answers once an event
/// after `after` that `filter` wants exists or at `deadline` (an empty page
/// whose `next_after` is past what the filter dropped), holding no thread
/// meanwhile; 410 `gone` when a store read finds `after` below a horizon
/// that rose beyond the `horizon` the route saw.
std::shared_ptr<stream_source> make_poll_source(const route_context& ctx,
                                                std::shared_ptr<event_hub::ticket> ticket,
                                                int64_t after, size_t limit, int64_t horizon,
                                                event_filter filter,
                                                std::chrono::steady_clock::time_point deadline);

/// Makes an event stream (`text/event-stream`) of the events after `after`
/// that `filter` wants:
/// a heartbeat comment (`: keep-alive`, `retry: 1000`) first and every
/// `heartbeat`, each event as a frame with `id`, `event`, `data` as soon as
/// it is published (what comes within `stream_flush` of a write goes out in
/// the next); it ends when the hub closes, a store read fails, or a store
/// read finds the stream fell behind retention: its cursor below a horizon
/// that rose beyond the `horizon` the route saw (the client reconnects with
/// `Last-Event-ID`, and is told 410 `gone`). A stream from `after` 0 reads
/// the events kept below that first horizon; only a later removal ends it.
std::shared_ptr<stream_source> make_event_stream(const route_context& ctx,
                                                 std::shared_ptr<event_hub::ticket> ticket,
                                                 int64_t after, int64_t horizon,
                                                 event_filter filter);

} // namespace stepwise::http
