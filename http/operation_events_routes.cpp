#include "http/console_routes.hpp"
#include "http/encode.hpp"
#include "http/event_search.hpp"
#include "http/query.hpp"
#include "http/reply.hpp"

namespace stepwise::http {

namespace {

constexpr int64_t max_timeline_seq = 1'000'000'000'000'000'000;
constexpr int64_t timeline_page = 1000;

// A page of one operation's events, from the store's index by operation:
// complete however many other operations wrote between them.
void timeline(const router& r, const route_context& ctx, request& rq, server_response& res) {
  query q{rq.raw.params};
  int64_t after = 0;
  int64_t limit = std::min<int64_t>(timeline_page, static_cast<int64_t>(ctx.lim.max_events_page));
  if (auto err = q.only({"after", "limit"}))
    return r.write(rq.raw.path, res, *err);
  if (auto err = q.integer("after", 0, max_timeline_seq, after))
    return r.write(rq.raw.path, res, *err);
  if (auto err = q.integer("limit", 1, static_cast<int64_t>(ctx.lim.max_events_page), limit))
    return r.write(rq.raw.path, res, *err);
  auto eng = ctx.eng;
  // The newest seq first: an event the page misses comes after it, so a
  // client that streams from `last_seq` on sees it.
  auto last = last_event_seq(eng);
  if (!last)
    return r.write(rq.raw.path, res, from_engine(last.error()));
  auto op = eng.get(rq.params[0]);
  if (!op)
    return r.write(rq.raw.path, res, from_engine(op.error()));
  auto items = eng.operation_events(op->id, after, static_cast<size_t>(limit));
  if (!items)
    return r.write(rq.raw.path, res, from_engine(items.error()));
  boost::json::value next = nullptr;
  if (items->size() == static_cast<size_t>(limit))
    next = items->back().seq;
  auto newest = items->empty() ? *last : std::max(*last, items->back().seq);
  write_json(res, 200,
             boost::json::object{
               {"items", to_json_array(*items)}, {"next_after", next}, {"last_seq", newest}});
}

void latest(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (auto err = query{rq.raw.params}.only({}))
    return r.write(rq.raw.path, res, *err);
  auto eng = ctx.eng;
  auto seq = last_event_seq(eng);
  if (!seq)
    return r.write(rq.raw.path, res, from_engine(seq.error()));
  write_json(res, 200, boost::json::object{{"seq", *seq}});
}

} // namespace

void add_operation_events_routes(router& r, const route_context& ctx) {
  add_route(r, ctx, "GET", "/api/v1/operations/{id}/events", timeline);
  add_route(r, ctx, "GET", "/api/v1/events/latest", latest);
}

} // namespace stepwise::http
