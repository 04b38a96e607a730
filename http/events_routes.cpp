#include <chrono>

#include "http/event_sources.hpp"
#include "http/query.hpp"
#include "http/routes.hpp"

namespace stepwise::http {

namespace {

constexpr int64_t max_seq = 1'000'000'000'000'000'000;

void poll(const router& r, const route_context& ctx, request& rq, server_response& res) {
  query q{rq.raw.params};
  int64_t after = 0;
  int64_t limit = 100;
  double wait = 0;
  event_filter filter;
  if (auto err =
        q.only({"after", "limit", "wait", "type", "operation", "workflow", "label"}, {"label"}))
    return r.write(rq.raw.path, res, *err);
  if (auto err = read_event_filter(q, filter))
    return r.write(rq.raw.path, res, *err);
  if (auto err = q.integer("after", 0, max_seq, after))
    return r.write(rq.raw.path, res, *err);
  if (auto err = q.integer("limit", 1, static_cast<int64_t>(ctx.lim.max_events_page), limit))
    return r.write(rq.raw.path, res, *err);
  if (auto err = q.seconds("wait", ctx.lim.max_wait_seconds, wait))
    return r.write(rq.raw.path, res, *err);
  std::shared_ptr<event_hub::ticket> ticket;
  auto deadline = std::chrono::steady_clock::now();
  if (wait > 0) {
    if (auto err = admit_waiter(ctx, rq.raw, ticket))
      return r.write(rq.raw.path, res, *err);
    deadline += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(wait));
  }
  // The log starts after the horizon: below it, only the kept part of it
  // remains, which a pager from 0 could not page through without a 410.
  if (after == 0) {
    auto h = ctx.eng.event_horizon();
    if (!h)
      return r.write(rq.raw.path, res, from_engine(h.error()));
    after = *h;
  }
  auto page = fetch_events(ctx, after, static_cast<size_t>(limit));
  if (page.error)
    return r.write(rq.raw.path, res, *page.error);
  // Past what the filter drops: the client's `next_after`, and where a
  // wait starts.
  if (!page.items.empty())
    after = page.items.back().seq;
  if (filter.ops)
    if (auto err = filter.ops->resolve(ctx.eng, page.items))
      return r.write(rq.raw.path, res, *err);
  filter.keep_wanted(page.items);
  if (!page.items.empty() || wait <= 0 || ctx.hub->closed())
    return write_events_page(res, page.items, after);
  // Nothing yet: the connection waits for an event, holding no thread.
  rq.answer_later(make_poll_source(ctx, std::move(ticket), after, static_cast<size_t>(limit),
                                   page.horizon, filter, deadline));
}

void stream(const router& r, const route_context& ctx, request& rq, server_response& res) {
  query q{rq.raw.params};
  int64_t after = 0;
  event_filter filter;
  if (auto err = q.only({"after", "type", "operation", "workflow", "label"}, {"label"}))
    return r.write(rq.raw.path, res, *err);
  if (auto err = read_event_filter(q, filter))
    return r.write(rq.raw.path, res, *err);
  if (auto err = q.integer("after", 0, max_seq, after))
    return r.write(rq.raw.path, res, *err);
  // A reconnecting EventSource sends the id of the last event it saw.
  if (rq.raw.headers.has("Last-Event-ID")) {
    auto& text = rq.raw.headers.get("Last-Event-ID");
    // Read as strictly as the query's `after`.
    query_params header{{"Last-Event-ID", text}};
    if (auto err = query{header}.integer("Last-Event-ID", 0, max_seq, after))
      return r.write(rq.raw.path, res,
                     invalid_argument("header Last-Event-ID must be an event "
                                      "seq (a non-negative integer), not '"
                                      + text + "'"));
  }
  std::shared_ptr<event_hub::ticket> ticket;
  if (auto err = admit_waiter(ctx, rq.raw, ticket))
    return r.write(rq.raw.path, res, *err);
  // Before the head goes out, so that a client behind retention is told
  // by status; one that falls behind later is ended by the stream.
  auto horizon = ctx.eng.event_horizon();
  if (!horizon)
    return r.write(rq.raw.path, res, from_engine(horizon.error()));
  if (before_horizon(after, *horizon))
    return r.write(rq.raw.path, res, events_gone(*horizon));
  if (after == 0)
    after = *horizon; // the log starts after it (see poll)
  res.status = 200;
  res.headers.set("Content-Type", "text/event-stream");
  res.headers.set("Cache-Control", "no-cache");
  res.headers.set("X-Accel-Buffering", "no");
  rq.answer_later(make_event_stream(ctx, std::move(ticket), after, *horizon, filter));
}

} // namespace

void add_events_routes(router& r, const route_context& ctx) {
  add_route(r, ctx, "GET", "/api/v1/events", poll);
  add_route(r, ctx, "GET", "/api/v1/events/stream", stream);
}

} // namespace stepwise::http
