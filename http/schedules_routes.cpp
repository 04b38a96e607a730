// `/api/v1/schedules`: durable schedules, each fire of which starts one
// operation. The schedule keeper answers every call; this file only
// translates (http/schedule_json.hpp is the JSON).
#include "engine/errc.hpp"
#include "http/body.hpp"
#include "http/encode.hpp"
#include "http/query.hpp"
#include "http/reply.hpp"
#include "http/routes.hpp"
#include "http/schedule_json.hpp"

namespace stepwise::http {

namespace {

constexpr const char* schedules_base = "/api/v1/schedules";

// Answers `err` when set; returns whether it did.
bool schedule_refused(const router& r, const request& rq, server_response& res,
                      const std::optional<api_error>& err) {
  if (!err)
    return false;
  r.write(rq.raw.path, res, *err);
  return true;
}

void write_schedule(const route_context& ctx, server_response& res, int status,
                    const schedule_view& v) {
  write_json(res, status, to_json(masked(v, ctx.eng.workflows())));
}

// Reads the body of a create or a replace (`path_id` empty: a create).
bool read_schedule_body(const router& r, const route_context& ctx, request& rq,
                        server_response& res, const std::string& path_id, schedule& out) {
  boost::json::value body;
  return !schedule_refused(r, rq, res, query{rq.raw.params}.only({}))
         && !schedule_refused(r, rq, res, parse_json(rq.body, ctx.lim.max_json_depth, body))
         && !schedule_refused(r, rq, res, decode_schedule(body, path_id, out));
}

void schedule_create(const router& r, const route_context& ctx, request& rq, server_response& res) {
  schedule s;
  if (!read_schedule_body(r, ctx, rq, res, {}, s))
    return;
  auto got = ctx.eng.create_schedule(s, caller_of(ctx, rq));
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  res.headers.set("Location", std::string(schedules_base) + "/" + got->view.schedule.id);
  write_schedule(ctx, res, got->created ? 201 : 200, got->view);
}

void schedule_replace(const router& r, const route_context& ctx, request& rq,
                      server_response& res) {
  schedule s;
  if (!read_schedule_body(r, ctx, rq, res, rq.params[0], s))
    return;
  auto got = ctx.eng.replace_schedule(s, caller_of(ctx, rq));
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  write_schedule(ctx, res, 200, *got);
}

void schedule_list(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (schedule_refused(r, rq, res, query{rq.raw.params}.only({})))
    return;
  auto got = ctx.eng.list_schedules();
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  boost::json::array items;
  items.reserve(got->size());
  for (auto& v : *got)
    items.emplace_back(to_json(masked(v, ctx.eng.workflows())));
  write_json(res, 200, boost::json::object{{"items", std::move(items)}});
}

void schedule_show(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (schedule_refused(r, rq, res, query{rq.raw.params}.only({})))
    return;
  auto got = ctx.eng.get_schedule(rq.params[0]);
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  write_schedule(ctx, res, 200, *got);
}

// Delete, pause, resume and trigger take no parameters and an empty body
// (or {}).
bool schedule_command_ok(const router& r, const route_context& ctx, request& rq,
                         server_response& res) {
  return !schedule_refused(r, rq, res, query{rq.raw.params}.only({}))
         && !schedule_refused(r, rq, res, check_empty_command(rq.body, ctx.lim.max_json_depth));
}

void schedule_delete(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (!schedule_command_ok(r, ctx, rq, res))
    return;
  auto got = ctx.eng.delete_schedule(rq.params[0], caller_of(ctx, rq));
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  write_schedule(ctx, res, 200, *got);
}

template <bool Paused>
void schedule_pause(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (!schedule_command_ok(r, ctx, rq, res))
    return;
  auto got = ctx.eng.pause_schedule(rq.params[0], Paused, caller_of(ctx, rq));
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  write_schedule(ctx, res, 200, *got);
}

// Answers like a start: the operation the fire started, which runs on.
void schedule_trigger(const router& r, const route_context& ctx, request& rq,
                      server_response& res) {
  if (!schedule_command_ok(r, ctx, rq, res))
    return;
  auto got = ctx.eng.trigger_schedule(rq.params[0], caller_of(ctx, rq));
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  res.headers.set("Location", "/api/v1/operations/" + got->op.id);
  write_json_text(res, 202, operation_text(got->op));
}

} // namespace

void add_schedules_routes(router& r, const route_context& ctx) {
  std::string all = schedules_base;
  std::string one = all + "/{id}";
  add_route(r, ctx, "POST", all, schedule_create);
  add_route(r, ctx, "GET", all, schedule_list);
  add_route(r, ctx, "GET", one, schedule_show);
  add_route(r, ctx, "PUT", one, schedule_replace);
  add_route(r, ctx, "DELETE", one, schedule_delete);
  add_route(r, ctx, "POST", one + "/pause", schedule_pause<true>);
  add_route(r, ctx, "POST", one + "/resume", schedule_pause<false>);
  add_route(r, ctx, "POST", one + "/trigger", schedule_trigger);
}

} // namespace stepwise::http
