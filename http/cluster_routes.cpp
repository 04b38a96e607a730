// `GET /api/v1/cluster`: the servers sharing the store.
#include "http/encode.hpp"
#include "http/errors.hpp"
#include "http/query.hpp"
#include "http/reply.hpp"
#include "http/routes.hpp"

namespace stepwise::http {

namespace {

boost::json::value text_or_null(const std::string& s) {
  return s.empty() ? boost::json::value(nullptr) : boost::json::value(s);
}

// Zero: a server alone on its store holds no lease.
boost::json::value time_or_null(time_point t) {
  return t == time_point{} ? boost::json::value(nullptr) : boost::json::value(format_time(t));
}

boost::json::object cluster_json(const cluster_view& v) {
  boost::json::array servers;
  for (auto& s : v.servers)
    servers.emplace_back(boost::json::object{
      {"id", s.owner},
      {"url", text_or_null(s.url)},
      {"version", text_or_null(s.version)},
      {"started_at", format_time(s.started_at)},
      {"renewed_at", time_or_null(s.renewed_at)},
      {"lease_expires_at", time_or_null(s.lease_expires_at)},
      {"operations", s.operations},
      {"self", s.owner == v.self},
    });
  return {{"self", v.self}, {"servers", std::move(servers)}};
}

void show(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (auto err = query{rq.raw.params}.only({}))
    return r.write(rq.raw.path, res, *err);
  auto view = ctx.eng.cluster();
  if (!view)
    return r.write(rq.raw.path, res, from_engine(view.error()));
  write_json(res, 200, cluster_json(*view));
}

} // namespace

void add_cluster_routes(router& r, const route_context& ctx) {
  add_route(r, ctx, "GET", "/api/v1/cluster", show);
}

} // namespace stepwise::http
