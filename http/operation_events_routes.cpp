#include "http/console_routes.hpp"
#include "http/encode.hpp"
#include "http/event_search.hpp"
#include "http/query.hpp"
#include "http/reply.hpp"

namespace stepwise::http {

namespace {

// Bounds of one timeline request: the log has no index by operation.
constexpr size_t max_scanned = 200000;
constexpr size_t max_items = 2000;

void timeline(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (auto err = query{rq.raw.params}.only({}))
    return r.write(rq.raw.path, res, *err);
  auto eng = ctx.eng;
  auto op = eng.get(rq.params[0]);
  if (!op)
    return r.write(rq.raw.path, res, from_engine(op.error()));
  auto found = events_of(eng, *op, max_scanned, max_items);
  if (!found)
    return r.write(rq.raw.path, res, from_engine(found.error()));
  write_json(res, 200,
             boost::json::object{{"items", to_json_array(found->items)},
                                 {"complete", found->complete},
                                 {"last_seq", found->last_seq}});
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
