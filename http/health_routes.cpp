#include "http/query.hpp"
#include "http/reply.hpp"
#include "http/routes.hpp"

namespace stepwise::http {

void add_health_routes(router& r, const route_context& ctx) {
  const router* rp = &r;
  // Liveness: the process answers HTTP. Nothing else is checked, so that an
  // orchestrator does not restart a server whose store is only slow.
  r.add("GET", "/healthz", [rp](request& rq, server_response& res) {
    if (auto err = query{rq.raw.params}.only({}))
      return rp->write(rq.raw.path, res, *err);
    write_json(res, 200, boost::json::object{{"status", "ok"}});
  });
  // Readiness: recovery is done, the store answers and we are not stopping.
  r.add("GET", "/readyz", [rp, ctx](request& rq, server_response& res) {
    if (auto err = query{rq.raw.params}.only({}))
      return rp->write(rq.raw.path, res, *err);
    if (ctx.hub->closed() || ctx.eng.draining())
      return rp->write(rq.raw.path, res, shutting_down());
    if (auto why = ctx.eng.not_ready_reason(); !why.empty())
      return rp->write(rq.raw.path, res, {503, "not_ready", "not ready: " + why});
    write_json(res, 200,
               boost::json::object{{"status", "ready"}, {"store", ctx.eng.store_backend()}});
  });
}

} // namespace stepwise::http
