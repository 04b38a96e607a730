#include "engine/errc.hpp"
#include "engine/json_text.hpp"
#include "http/body.hpp"
#include "http/deferred_answer.hpp"
#include "http/encode.hpp"
#include "http/query.hpp"
#include "http/repair_body.hpp"
#include "http/reply.hpp"
#include "http/routes.hpp"

namespace stepwise::http {

namespace {

constexpr const char* ops_base = "/api/v1/operations";

// Answers `err` when set; returns whether it did.
bool failed(const router& r, const request& rq, server_response& res,
            const std::optional<api_error>& err) {
  if (!err)
    return false;
  r.write(rq.raw.path, res, *err);
  return true;
}

void start(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (failed(r, rq, res, query{rq.raw.params}.only({})))
    return;
  boost::json::value body;
  if (failed(r, rq, res, parse_json(rq.body, ctx.lim.max_json_depth, body)))
    return;
  start_request sr;
  if (failed(r, rq, res, decode_start(body, sr)))
    return;
  sr.by = caller_of(ctx, rq);
  // Runs on the connection's I/O thread: the engine's answer comes back
  // by callback, and the connection sends it.
  auto answer = std::make_shared<deferred_answer>();
  ctx.eng.start(sr, [answer, rp = &r, path = rq.raw.path](caf::expected<start_result> result) {
    if (!result) {
      answer->deliver([rp, path, err = from_engine(result.error())](server_response& res) {
        rp->write(path, res, err);
      });
      return;
    }
    answer->deliver([op = std::move(result->op), created = result->created](server_response& res) {
      res.headers.set("Location", std::string(ops_base) + "/" + op.id);
      write_json_text(res, created ? 201 : 200, operation_text(op));
    });
  });
  rq.answer_later(std::move(answer));
}

void list(const router& r, const route_context& ctx, request& rq, server_response& res) {
  query q{rq.raw.params};
  if (failed(r, rq, res,
             q.only({"state", "workflow", "parent", "schedule", "limit", "cursor", "label",
                     "created_after", "created_before", "idempotency_key"},
                    {"label"})))
    return;
  list_filter f;
  std::string state;
  int64_t limit = 50;
  if (failed(r, rq, res, q.text("state", state))
      || failed(r, rq, res, q.text("workflow", f.workflow))
      || failed(r, rq, res, q.text("parent", f.parent))
      || failed(r, rq, res, q.text("schedule", f.schedule))
      || failed(r, rq, res, q.text("cursor", f.cursor))
      || failed(r, rq, res, q.labels("label", f.labels))
      || failed(r, rq, res, q.time("created_after", f.created_after))
      || failed(r, rq, res, q.time("created_before", f.created_before))
      || failed(r, rq, res, q.text("idempotency_key", f.idempotency_key))
      || failed(r, rq, res, q.integer("limit", 1, static_cast<int64_t>(ctx.lim.max_page), limit)))
    return;
  if (!state.empty()) {
    f.state = parse_op_state(state);
    if (!f.state)
      return r.write(rq.raw.path, res,
                     invalid_argument("query parameter 'state' must be one of "
                                      "pending, in_progress, waiting, "
                                      "succeeded, failed, canceled, "
                                      "compensating; not '"
                                      + state + "'"));
  }
  f.limit = static_cast<size_t>(limit);
  auto page = ctx.eng.list(f);
  if (!page)
    return r.write(rq.raw.path, res, from_engine(page.error()));
  std::string out = "{\"items\":[";
  for (size_t i = 0; i < page->items.size(); ++i) {
    if (i > 0)
      out += ',';
    append_operation_json(out, page->items[i]);
  }
  out += "],\"next_cursor\":";
  if (page->next_cursor.empty())
    out += "null";
  else
    json_text::append_string(out, page->next_cursor);
  out += '}';
  write_json_text(res, 200, std::move(out));
}

void show(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (failed(r, rq, res, query{rq.raw.params}.only({})))
    return;
  auto op = ctx.eng.get(rq.params[0]);
  if (!op)
    return r.write(rq.raw.path, res, from_engine(op.error()));
  auto children = ctx.eng.count_children(op->id);
  if (!children)
    return r.write(rq.raw.path, res, from_engine(children.error()));
  write_json_text(res, 200, operation_text(*op, &*children));
}

// Cancel, pause and resume: the same request and answer around another engine call.
template <caf::expected<operation> (engine::*Command)(const std::string&, const std::string&)>
void command(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (failed(r, rq, res, query{rq.raw.params}.only({}))
      || failed(r, rq, res, check_empty_command(rq.body, ctx.lim.max_json_depth)))
    return;
  auto op = (ctx.eng.*Command)(rq.params[0], caller_of(ctx, rq));
  if (!op)
    return r.write(rq.raw.path, res, from_engine(op.error()));
  write_json_text(res, 202, operation_text(*op));
}

// Retry (`{input?, from_step?}`) and skip (`{step, reason}`): a request
// that carries fields, checked here for their shape and by the operation
// for the rest.
template <std::optional<api_error> (*Decode)(std::string_view, size_t, command_request&)>
void repair(const router& r, const route_context& ctx, request& rq, server_response& res) {
  command_request req;
  if (failed(r, rq, res, query{rq.raw.params}.only({}))
      || failed(r, rq, res, Decode(rq.body, ctx.lim.max_json_depth, req)))
    return;
  req.by = caller_of(ctx, rq);
  auto op = ctx.eng.apply(rq.params[0], std::move(req));
  if (!op)
    return r.write(rq.raw.path, res, from_engine(op.error()));
  write_json_text(res, 202, operation_text(*op));
}

} // namespace

void add_operations_routes(router& r, const route_context& ctx) {
  std::string ops = ops_base;
  add_route(r, ctx, "POST", ops, start, true);
  add_route(r, ctx, "GET", ops, list);
  add_route(r, ctx, "GET", ops + "/{id}", show);
  add_route(r, ctx, "POST", ops + "/{id}/cancel", command<&engine::cancel>);
  add_route(r, ctx, "POST", ops + "/{id}/retry", repair<&decode_retry>);
  add_route(r, ctx, "POST", ops + "/{id}/skip", repair<&decode_skip>);
  add_route(r, ctx, "POST", ops + "/{id}/pause", command<&engine::pause>);
  add_route(r, ctx, "POST", ops + "/{id}/resume", command<&engine::resume>);
}

} // namespace stepwise::http
