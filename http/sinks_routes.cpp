// `GET /api/v1/sinks` and the sinks' lines of `/metrics`.

#include "http/sinks_routes.hpp"

#include "http/prometheus.hpp"
#include "http/query.hpp"
#include "http/reply.hpp"
#include "http/routes.hpp"

namespace stepwise::http {

namespace {

boost::json::array strings(const std::vector<std::string>& xs) {
  boost::json::array out;
  for (auto& x : xs)
    out.emplace_back(x);
  return out;
}

} // namespace

boost::json::object sinks_json(const std::vector<outbox::sink_status>& sinks) {
  boost::json::array items;
  for (auto& s : sinks) {
    boost::json::object x;
    x["name"] = s.name;
    x["kind"] = s.kind;
    x["destination"] = s.destination;
    x["filter"] = {{"events", strings(s.events)}, {"workflows", strings(s.workflows)}};
    x["cursor"] = s.cursor;
    x["lag"] = s.lag;
    x["delivered"] = s.delivered;
    x["failed"] = s.failed;
    x["last_error"] =
      s.last_error.empty() ? boost::json::value(nullptr) : boost::json::value(s.last_error);
    x["last_delivery_at"] = s.last_delivery_at
                              ? boost::json::value(format_time(*s.last_delivery_at))
                              : boost::json::value(nullptr);
    x["holder"] = s.holder.empty() ? boost::json::value(nullptr) : boost::json::value(s.holder);
    x["held_here"] = s.held_here;
    items.emplace_back(std::move(x));
  }
  return {{"items", std::move(items)}};
}

void render_sink_metrics(prometheus_writer& w, const route_context& ctx) {
  if (!ctx.sinks)
    return;
  auto sinks = ctx.sinks();
  if (!sinks || sinks->empty())
    return;
  auto each = [&](const char* name, const char* type, const char* help, auto get) {
    w.family(name, type, help);
    for (auto& s : *sinks)
      w.sample(name, {{"sink", s.name}}, static_cast<double>(get(s)));
  };
  each("stepwise_sink_delivered_total", "counter",
       "Events this process delivered to the sink (acknowledged; a retried "
       "event counts again).",
       [](const outbox::sink_status& s) { return s.delivered; });
  each("stepwise_sink_failed_total", "counter",
       "Delivery attempts of this process that failed (each batch once).",
       [](const outbox::sink_status& s) { return s.failed; });
  each("stepwise_sink_lag_events", "gauge",
       "Events of the log after the sink's cursor (not yet delivered).",
       [](const outbox::sink_status& s) { return s.lag; });
  each("stepwise_sink_held", "gauge", "1 when this process delivers the sink.",
       [](const outbox::sink_status& s) { return s.held_here ? 1 : 0; });
  w.family("stepwise_sink_lag_seconds", "histogram",
           "Seconds from an event's time to the destination's acknowledgement "
           "(deliveries of this process).");
  for (auto& s : *sinks)
    w.histogram("stepwise_sink_lag_seconds", {{"sink", s.name}}, s.lag_bounds, s.lag_counts,
                s.lag_sum_s);
}

void add_sinks_routes(router& r, const route_context& ctx) {
  const router* rp = &r;
  r.add("GET", "/api/v1/sinks", [rp, ctx](request& rq, server_response& res) {
    if (auto err = query{rq.raw.params}.only({}))
      return rp->write(rq.raw.path, res, *err);
    if (!ctx.sinks)
      return write_json(res, 200, sinks_json({}));
    auto sinks = ctx.sinks();
    if (!sinks)
      return rp->write(rq.raw.path, res, from_engine(sinks.error()));
    write_json(res, 200, sinks_json(*sinks));
  });
}

} // namespace stepwise::http
