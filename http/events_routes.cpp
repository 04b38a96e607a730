#include <chrono>

#include "http/encode.hpp"
#include "http/query.hpp"
#include "http/reply.hpp"
#include "http/routes.hpp"
#include "engine/event_json.hpp"

namespace stepwise::http {

namespace {

using steady = std::chrono::steady_clock;

// Longest a waiting reader trusts the hub alone. With a store that other
// processes write too (the hub does not cache then), their events reach no
// hub here: the store is read again this often, which bounds how late a
// long poll or stream sees another process's event.
constexpr auto poll_slice_sole = std::chrono::seconds(1);
constexpr auto poll_slice_shared = std::chrono::milliseconds(200);

steady::duration poll_slice(const route_context& ctx) {
  return ctx.hub->caching() ? steady::duration{poll_slice_sole}
                            : steady::duration{poll_slice_shared};
}

constexpr int64_t max_seq = 1'000'000'000'000'000'000;

caf::expected<std::vector<event>> fetch(const route_context& ctx, int64_t after, size_t limit) {
  if (auto cached = ctx.hub->cached_after(after, limit))
    return std::move(*cached);
  ctx.hub->count_store_read();
  return ctx.eng.events(after, limit);
}

// Returns events after `after`, waiting until `deadline` for the first one.
caf::expected<std::vector<event>> fetch_or_wait(const route_context& ctx, int64_t after,
                                                size_t limit, steady::time_point deadline) {
  for (;;) {
    auto items = fetch(ctx, after, limit);
    if (!items || !items->empty() || ctx.hub->closed())
      return items;
    auto now = steady::now();
    if (now >= deadline)
      return items;
    ctx.hub->wait_beyond(after, std::min(deadline, now + poll_slice(ctx)));
  }
}

void poll(const router& r, const route_context& ctx, request& rq, httplib::Response& res) {
  query q{rq.raw};
  int64_t after = 0;
  int64_t limit = 100;
  double wait = 0;
  if (auto err = q.only({"after", "limit", "wait"}))
    return r.write(rq.raw.path, res, *err);
  if (auto err = q.integer("after", 0, max_seq, after))
    return r.write(rq.raw.path, res, *err);
  if (auto err = q.integer("limit", 1, static_cast<int64_t>(ctx.lim.max_events_page), limit))
    return r.write(rq.raw.path, res, *err);
  if (auto err = q.seconds("wait", ctx.lim.max_wait_seconds, wait))
    return r.write(rq.raw.path, res, *err);
  std::shared_ptr<event_hub::ticket> ticket;
  auto deadline = steady::now();
  if (wait > 0) {
    ticket = ctx.hub->admit(ctx.lim.max_streams);
    if (!ticket)
      return r.write(rq.raw.path, res,
                     {503, "too_many_waiters", "too many long polls and streams are open; retry"});
    deadline += std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(wait));
  }
  auto items = fetch_or_wait(ctx, after, static_cast<size_t>(limit), deadline);
  if (!items)
    return r.write(rq.raw.path, res, from_engine(items.error()));
  boost::json::array arr;
  arr.reserve(items->size());
  for (auto& e : *items)
    arr.emplace_back(to_json(e));
  boost::json::object out;
  out["items"] = std::move(arr);
  out["next_after"] = items->empty() ? after : items->back().seq;
  write_json(res, 200, out);
}

void append_sse_frame(std::string& out, const event& e) {
  out += "id: ";
  out += std::to_string(e.seq);
  out += "\nevent: ";
  out += to_string(e.type);
  out += "\ndata: ";
  append_event_json(out, e);
  out += "\n\n";
}

// The state of one event stream, owned by its content provider.
struct stream_state {
  route_context ctx;
  std::shared_ptr<event_hub::ticket> ticket;
  int64_t last;
  steady::time_point next_heartbeat;
};

void stream(const router& r, const route_context& ctx, request& rq, httplib::Response& res) {
  query q{rq.raw};
  int64_t after = 0;
  if (auto err = q.only({"after"}))
    return r.write(rq.raw.path, res, *err);
  if (auto err = q.integer("after", 0, max_seq, after))
    return r.write(rq.raw.path, res, *err);
  // A reconnecting EventSource sends the id of the last event it saw.
  if (rq.raw.has_header("Last-Event-ID")) {
    auto text = rq.raw.get_header_value("Last-Event-ID");
    httplib::Request fake;
    fake.params.emplace("Last-Event-ID", text);
    if (auto err = query{fake}.integer("Last-Event-ID", 0, max_seq, after))
      return r.write(rq.raw.path, res,
                     invalid_argument("header Last-Event-ID must be an event "
                                      "seq (a non-negative integer), not '"
                                      + text + "'"));
  }
  auto ticket = ctx.hub->admit(ctx.lim.max_streams);
  if (!ticket)
    return r.write(rq.raw.path, res,
                   {503, "too_many_waiters", "too many long polls and streams are open; retry"});
  auto st =
    std::make_shared<stream_state>(stream_state{ctx, std::move(ticket), after, steady::now()});
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  res.set_chunked_content_provider("text/event-stream", [st](size_t, httplib::DataSink& sink) {
    auto& c = st->ctx;
    // httplib does not check between calls: a client that left is noticed
    // here, within one poll slice, and frees its slot.
    if (!sink.is_writable())
      return false;
    auto now = steady::now();
    if (now >= st->next_heartbeat) {
      // Also the first write: it tells the client how fast to reconnect.
      st->next_heartbeat = now + c.lim.heartbeat;
      std::string beat = ": keep-alive\nretry: 1000\n\n";
      if (!sink.write(beat.data(), beat.size()))
        return false;
    }
    auto until = std::min(st->next_heartbeat, now + poll_slice(c));
    auto items =
      fetch_or_wait(c, st->last, 500, std::chrono::time_point_cast<steady::duration>(until));
    if (!items) {
      // Ends the stream; the client reconnects with Last-Event-ID.
      return false;
    }
    std::string chunk;
    for (auto& e : *items)
      append_sse_frame(chunk, e);
    if (!items->empty()) {
      st->last = items->back().seq;
      if (!sink.write(chunk.data(), chunk.size()))
        return false;
    }
    if (c.hub->closed())
      sink.done();
    return true;
  });
}

} // namespace

void add_events_routes(router& r, const route_context& ctx) {
  add_route(r, ctx, "GET", "/api/v1/events", poll);
  add_route(r, ctx, "GET", "/api/v1/events/stream", stream);
}

} // namespace stepwise::http
