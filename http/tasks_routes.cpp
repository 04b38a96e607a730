// `/api/v1/tasks`: workers in any language carry out task steps. They poll
// a queue (a long poll that holds no thread), send heartbeats while they
// work and answer each task once; the task broker (actors/task_broker.hpp)
// answers every call, this file only translates (http/task_json.hpp).
#include "http/body.hpp"
#include "http/deferred_answer.hpp"
#include "http/query.hpp"
#include "http/reply.hpp"
#include "http/routes.hpp"
#include "http/task_json.hpp"

namespace stepwise::http {

namespace {

/// Parses the body (blank: null) and checks that the query is empty;
/// answers the error and returns false when one is found.
bool read_task_body(const router& r, const route_context& ctx, request& rq, server_response& res,
                    boost::json::value& out) {
  auto err = query{rq.raw.params}.only({});
  if (!err && rq.body.find_first_not_of(" \t\r\n") != std::string_view::npos)
    err = parse_json(rq.body, ctx.lim.max_json_depth, out);
  if (err)
    r.write(rq.raw.path, res, *err);
  return !err;
}

void task_poll_route(const router& r, const route_context& ctx, request& rq, server_response& res) {
  boost::json::value body;
  task_poll p;
  if (!read_task_body(r, ctx, rq, res, body))
    return;
  if (auto err = decode_task_poll(body, p))
    return r.write(rq.raw.path, res, *err);
  // Runs on the connection's I/O thread: the broker answers when a task
  // is ready or the wait is over, and no thread waits meanwhile.
  auto answer = std::make_shared<deferred_answer>();
  ctx.eng.poll_tasks(p, [answer, rp = &r, path = rq.raw.path](auto got) {
    if (!got) {
      answer->deliver([rp, path, err = from_engine(got.error())](server_response& res) {
        rp->write(path, res, err);
      });
      return;
    }
    boost::json::array tasks;
    for (auto& t : *got)
      tasks.push_back(to_json(t));
    answer->deliver([body = boost::json::object{{"tasks", std::move(tasks)}}](
                      server_response& res) { write_json(res, 200, body); });
  });
  rq.answer_later(std::move(answer));
}

void task_heartbeat(const router& r, const route_context& ctx, request& rq, server_response& res) {
  boost::json::value body;
  task_beat b;
  b.token = rq.params[0];
  if (!read_task_body(r, ctx, rq, res, body))
    return;
  if (auto err = decode_task_beat(body, b))
    return r.write(rq.raw.path, res, *err);
  auto got = ctx.eng.heartbeat_task(b);
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  write_json(res, 200, boost::json::object{{"cancel_requested", got->cancel_requested}});
}

template <task_answer::kind What>
void task_answer_route(const router& r, const route_context& ctx, request& rq,
                       server_response& res) {
  boost::json::value body;
  task_answer a;
  a.token = rq.params[0];
  a.what = What;
  if (!read_task_body(r, ctx, rq, res, body))
    return;
  if (auto err = decode_task_answer(body, a))
    return r.write(rq.raw.path, res, *err);
  auto got = ctx.eng.answer_task(a);
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  write_json(res, 200, boost::json::object{{"accepted", true}});
}

void task_queues_route(const router& r, const route_context& ctx, request& rq,
                       server_response& res) {
  if (auto err = query{rq.raw.params}.only({}))
    return r.write(rq.raw.path, res, *err);
  auto got = ctx.eng.task_queues();
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  auto now = ctx.eng.clock().now();
  boost::json::array items;
  for (auto& q : *got)
    items.push_back(to_json(q, now));
  write_json(res, 200, boost::json::object{{"items", std::move(items)}});
}

} // namespace

void add_tasks_routes(router& r, const route_context& ctx) {
  const std::string base = "/api/v1/tasks";
  add_route(r, ctx, "POST", base + "/poll", task_poll_route, true);
  add_route(r, ctx, "POST", base + "/{token}/heartbeat", task_heartbeat);
  add_route(r, ctx, "POST", base + "/{token}/complete",
            task_answer_route<task_answer::kind::complete>);
  add_route(r, ctx, "POST", base + "/{token}/fail", task_answer_route<task_answer::kind::fail>);
  add_route(r, ctx, "GET", base + "/queues", task_queues_route);
}

} // namespace stepwise::http
