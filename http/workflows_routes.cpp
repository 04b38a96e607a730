#include "http/encode.hpp"
#include "http/query.hpp"
#include "http/reply.hpp"
#include "http/routes.hpp"

namespace stepwise::http {

namespace {

void list_workflows(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (auto err = query{rq.raw.params}.only({}))
    return r.write(rq.raw.path, res, *err);
  boost::json::array items;
  for (auto& wf : ctx.eng.workflows().all())
    items.emplace_back(to_json(*wf));
  boost::json::object out;
  out["items"] = std::move(items);
  write_json(res, 200, out);
}

void show_workflow(const router& r, const route_context& ctx, request& rq, server_response& res) {
  query q{rq.raw.params};
  int64_t version = 0;
  if (auto err = q.only({"version"}))
    return r.write(rq.raw.path, res, *err);
  if (auto err = q.integer("version", 1, std::numeric_limits<int32_t>::max(), version))
    return r.write(rq.raw.path, res, *err);
  auto& name = rq.params[0];
  std::optional<int32_t> wanted;
  if (version > 0)
    wanted = static_cast<int32_t>(version);
  auto wf = ctx.eng.workflows().find(name, wanted);
  if (!wf)
    return r.write(
      rq.raw.path, res,
      not_found("no workflow '" + name + "'"
                + (wanted ? " with version " + std::to_string(*wanted) : std::string())));
  auto out = to_json(*wf);
  boost::json::array versions;
  for (auto& x : ctx.eng.workflows().all())
    if (x->name() == name)
      versions.emplace_back(x->version());
  out["versions"] = std::move(versions);
  write_json(res, 200, out);
}

} // namespace

void add_workflows_routes(router& r, const route_context& ctx) {
  add_route(r, ctx, "GET", "/api/v1/workflows", list_workflows);
  add_route(r, ctx, "GET", "/api/v1/workflows/{name}", show_workflow);
}

} // namespace stepwise::http
