#include "http/body.hpp"
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
  if (!wf && ctx.eng.shares_store() && ctx.eng.reload_workflows())
    wf = ctx.eng.workflows().find(name, wanted); // defined by another server
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

void define_workflow(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (auto err = query{rq.raw.params}.only({}))
    return r.write(rq.raw.path, res, *err);
  boost::json::value body;
  if (auto err = parse_json(rq.body, ctx.lim.max_json_depth, body))
    return r.write(rq.raw.path, res, *err);
  if (!body.is_object())
    return r.write(rq.raw.path, res, wrong_type("body", "an object (the definition)", body));
  auto got = ctx.eng.define_workflow(rq.params[0], body.get_object());
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  res.headers.set("Location", "/api/v1/workflows/" + rq.params[0]
                                + "?version=" + std::to_string(got->wf->version()));
  write_json(res, got->created ? 201 : 200, to_json(*got->wf));
}

void delete_workflow(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (auto err = query{rq.raw.params}.only({}))
    return r.write(rq.raw.path, res, *err);
  auto got = ctx.eng.delete_workflow(rq.params[0]);
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  write_json(res, 200, boost::json::object{{"name", rq.params[0]}, {"versions_deleted", *got}});
}

} // namespace

void add_workflows_routes(router& r, const route_context& ctx) {
  add_route(r, ctx, "GET", "/api/v1/workflows", list_workflows);
  add_route(r, ctx, "GET", "/api/v1/workflows/{name}", show_workflow);
  add_route(r, ctx, "PUT", "/api/v1/workflows/{name}", define_workflow);
  add_route(r, ctx, "DELETE", "/api/v1/workflows/{name}", delete_workflow);
}

} // namespace stepwise::http
