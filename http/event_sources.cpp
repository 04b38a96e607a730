#include "http/event_sources.hpp"

#include <algorithm>

#include "engine/event_json.hpp"
#include "http/encode.hpp"
#include "http/reply.hpp"

namespace stepwise::http {

namespace {

using steady = std::chrono::steady_clock;

// The sole writer's hub sees every event: its readers look at the store
// again only as a safety net, rarely, since ten thousand idle streams that
// each look every second would take a core.
constexpr auto poll_slice_sole = std::chrono::seconds(15);
constexpr auto poll_slice_shared = std::chrono::milliseconds(200);

// Events per store read or frame batch of a stream.
constexpr size_t stream_page = 500;

// What both sources share: the last seq sent, a pending store read, the
// hub subscription of their current wait, and the horizon last seen.
class event_follower : public stream_source {
public:
  event_follower(const route_context& ctx, std::shared_ptr<event_hub::ticket> ticket, int64_t after,
                 size_t limit, int64_t horizon, event_filter filter)
    : ctx_(ctx),
      ticket_(std::move(ticket)),
      after_(after),
      limit_(limit),
      horizon_(horizon),
      filter_(filter) {
    // nop
  }

  void read() override {
    ctx_.hub->count_store_read();
    read_ = read_store();
    // A worker's thread: the operations the filter follows are read here.
    if (filter_.ops && !read_->error)
      read_->error = filter_.ops->resolve(ctx_.eng, read_->items);
  }

protected:
  // Reads a page, then the horizon (blocking).
  events_read read_store() const {
    events_read out;
    auto items = ctx_.eng.events(after_, limit_);
    if (!items) {
      out.error = from_engine(items.error());
      return out;
    }
    auto h = ctx_.eng.event_horizon();
    if (!h) {
      out.error = from_engine(h.error());
      return out;
    }
    out.horizon = std::max(horizon_, *h);
    if (*h > horizon_ && before_horizon(after_, *h))
      // A removal since the last look may have taken events after the
      // cursor that this reader never saw. Below a horizon it knew, the
      // reader reads what was kept (it began at 0, or knew the horizon
      // was below it): nothing it could have seen went since.
      out.error = events_gone(*h);
    else
      out.items = std::move(*items);
    return out;
  }

  // Returns the events after `after_`: what the last store read found, else
  // the cache's; none when the store must be read first.
  std::optional<events_read> take() {
    if (read_) {
      auto out = std::move(read_);
      read_.reset();
      if (!out->error)
        horizon_ = out->horizon;
      return out;
    }
    // A filter by workflow or label reads operations (blocking): in `read`.
    if (cache_trusted() && !filter_.ops)
      if (auto cached = ctx_.hub->cached_after(after_, limit_))
        return events_read{std::move(*cached), horizon_, std::nullopt};
    return std::nullopt;
  }

  // Returns whether the cache may answer: it may hold events that
  // retention removed from the store, at or below the horizon.
  bool cache_trusted() const {
    return after_ >= horizon_;
  }

  // Waits for an event beyond `after_` or `until`, whichever comes first.
  step wait(steady::time_point now, steady::time_point until, const std::function<void()>& wake) {
    sub_ = ctx_.hub->notify_beyond(after_, wake);
    step s;
    s.wake_at = std::min(until, now + poll_slice(ctx_));
    return s;
  }

  route_context ctx_;
  std::shared_ptr<event_hub::ticket> ticket_;
  int64_t after_;
  size_t limit_;
  int64_t horizon_;
  event_filter filter_;
  std::optional<events_read> read_;
  event_hub::subscription sub_;
};

class poll_source final : public event_follower {
public:
  poll_source(const route_context& ctx, std::shared_ptr<event_hub::ticket> ticket, int64_t after,
              size_t limit, int64_t horizon, event_filter filter, steady::time_point deadline)
    : event_follower(ctx, std::move(ticket), after, limit, horizon, filter), deadline_(deadline) {
    // nop
  }

  bool streaming() const override {
    return false;
  }

  step next(steady::time_point now, server_response& res,
            const std::function<void()>& wake) override {
    step s;
    // The server stops: what was there when the route read is the answer.
    if (ctx_.hub->closed()) {
      write_events_page(res, {}, after_);
      s.end = true;
      return s;
    }
    // The route read once before handing the request over: wait first.
    if (fetched_) {
      auto items = take();
      if (!items) {
        s.read = true;
        return s;
      }
      if (items->error) {
        write_error(res, *items->error);
        s.end = true;
        return s;
      }
      // Past the events the filter dropped, so that the next look and
      // the client's `next_after` start after them.
      if (!items->items.empty())
        after_ = items->items.back().seq;
      filter_.keep_wanted(items->items);
      if (!items->items.empty() || now >= deadline_) {
        write_events_page(res, items->items, after_);
        s.end = true;
        return s;
      }
    }
    fetched_ = true;
    return wait(now, deadline_, wake);
  }

private:
  steady::time_point deadline_;
  bool fetched_ = false;
};

class sse_source final : public event_follower {
public:
  sse_source(const route_context& ctx, std::shared_ptr<event_hub::ticket> ticket, int64_t after,
             int64_t horizon, event_filter filter)
    : event_follower(ctx, std::move(ticket), after, stream_page, horizon, filter) {
    // nop
  }

  bool streaming() const override {
    return true;
  }

  step next(steady::time_point now, server_response&, const std::function<void()>& wake) override {
    step s;
    if (ctx_.hub->closed()) {
      s.end = true;
      return s;
    }
    if (now >= next_heartbeat_) {
      // Also the first write: it tells the client how fast to reconnect.
      next_heartbeat_ = now + ctx_.lim.heartbeat;
      s.data = ": keep-alive\nretry: 1000\n\n";
      return s;
    }
    // Right after a write: gather what comes meanwhile into the next one.
    if (now < quiet_until_) {
      s.wake_at = std::min(quiet_until_, next_heartbeat_);
      return s;
    }
    // Tailing the cache: its frames are rendered already.
    if (!read_ && cache_trusted() && !filter_.ops) {
      if (auto r = ctx_.hub->rendered_after(after_, limit_, s.data, filter_)) {
        if (r->count == 0)
          return wait(now, next_heartbeat_, wake);
        after_ = r->last;
        // The filter wanted none of them: look again at once.
        if (s.data.empty()) {
          s.wake_at = now;
          return s;
        }
        // A full page: more is there already, and goes out at once.
        if (r->count < limit_)
          quiet_until_ = now + quiet_time();
        return s;
      }
    }
    auto items = take();
    if (!items) {
      s.read = true;
      return s;
    }
    if (items->error) {
      // Ends the stream; the client reconnects with Last-Event-ID (and is
      // told 410 when it fell behind retention).
      s.end = true;
      return s;
    }
    if (!items->items.empty()) {
      for (auto& e : items->items)
        if (filter_.wants(e))
          append_sse_frame(s.data, e);
      after_ = items->items.back().seq;
      if (s.data.empty()) {
        s.wake_at = now;
        return s;
      }
      if (items->items.size() < limit_)
        quiet_until_ = now + quiet_time();
      return s;
    }
    return wait(now, next_heartbeat_, wake);
  }

private:
  // How long after a write the next waits: `stream_flush`, or longer when
  // so many streams are open that they would write more often in all than
  // `stream_writes_per_second`.
  // Each time is drawn from [t, 2t): streams that one publish woke
  // together drift apart, so that their writes do not come in one burst
  // that every other connection waits behind.
  steady::duration quiet_time() {
    auto spread = std::chrono::microseconds(
      1000000 * ctx_.hub->waiting() / std::max<size_t>(ctx_.lim.stream_writes_per_second, 1));
    auto base = std::max<steady::duration>(ctx_.lim.stream_flush, spread);
    // xorshift64: cheap, and good enough to spread writes.
    jitter_ ^= jitter_ << 13;
    jitter_ ^= jitter_ >> 7;
    jitter_ ^= jitter_ << 17;
    return base + base * static_cast<int64_t>(jitter_ % 1024) / 1024;
  }

  uint64_t jitter_ = reinterpret_cast<uintptr_t>(this) | 1;

  steady::time_point next_heartbeat_;
  steady::time_point quiet_until_;
};

} // namespace

void append_sse_frame(std::string& out, const event& e) {
  out += "id: ";
  out += std::to_string(e.seq);
  out += "\nevent: ";
  out += to_string(e.type);
  out += "\ndata: ";
  append_event_json(out, e);
  out += "\n\n";
}

events_read fetch_events(const route_context& ctx, int64_t after, size_t limit) {
  events_read out;
  auto cached = ctx.hub->cached_after(after, limit);
  auto from_store = [&] {
    ctx.hub->count_store_read();
    auto items = ctx.eng.events(after, limit);
    if (items)
      out.items = std::move(*items);
    else
      out.error = from_engine(items.error());
  };
  if (cached)
    out.items = std::move(*cached);
  else
    from_store();
  if (out.error)
    return out;
  auto h = ctx.eng.event_horizon();
  if (!h) {
    out.error = from_engine(h.error());
    return out;
  }
  out.horizon = *h;
  if (before_horizon(after, *h))
    out.error = events_gone(*h);
  else if (cached && after < *h)
    // From the oldest kept: the cache may still hold removed events, and
    // the store (read after the horizon) has none of them.
    from_store();
  return out;
}

std::chrono::steady_clock::duration poll_slice(const route_context& ctx) {
  return ctx.hub->caching() ? steady::duration{poll_slice_sole}
                            : steady::duration{poll_slice_shared};
}

void write_events_page(server_response& res, const std::vector<event>& items, int64_t after) {
  boost::json::array arr;
  arr.reserve(items.size());
  for (auto& e : items)
    arr.emplace_back(to_json(e));
  boost::json::object out;
  out["items"] = std::move(arr);
  // `after` is past the events a filter dropped, which may follow the last
  // item.
  out["next_after"] = items.empty() ? after : std::max(after, items.back().seq);
  write_json(res, 200, out);
}

std::optional<api_error> admit_waiter(const route_context& ctx, const server_request& req,
                                      std::shared_ptr<event_hub::ticket>& out) {
  std::string holder;
  if (ctx.auth)
    holder = ctx.auth->name_of(req.headers.get("Authorization"));
  auto why = event_hub::refusal::server_full;
  out = ctx.hub->admit(ctx.lim.max_streams, holder, ctx.lim.max_streams_per_token, &why);
  if (out)
    return std::nullopt;
  if (why == event_hub::refusal::closed)
    return shutting_down();
  if (why == event_hub::refusal::holder_full)
    return api_error{503, "too_many_waiters",
                     "the token of " + holder + " has "
                       + std::to_string(ctx.lim.max_streams_per_token)
                       + " long polls and streams open, as many as one token may "
                         "(--max-streams-per-token); close one or retry"};
  return api_error{503, "too_many_waiters",
                   "too many long polls and streams are open ("
                     + std::to_string(ctx.lim.max_streams)
                     + ", the server's --max-streams); retry"};
}

std::shared_ptr<stream_source> make_poll_source(const route_context& ctx,
                                                std::shared_ptr<event_hub::ticket> ticket,
                                                int64_t after, size_t limit, int64_t horizon,
                                                event_filter filter, steady::time_point deadline) {
  return std::make_shared<poll_source>(ctx, std::move(ticket), after, limit, horizon, filter,
                                       deadline);
}

std::shared_ptr<stream_source> make_event_stream(const route_context& ctx,
                                                 std::shared_ptr<event_hub::ticket> ticket,
                                                 int64_t after, int64_t horizon,
                                                 event_filter filter) {
  return std::make_shared<sse_source>(ctx, std::move(ticket), after, horizon, filter);
}

} // namespace stepwise::http
