// `/api/v1/tasks`: workers in any language carry out task steps. They poll
// a queue (a long poll that holds no thread), send heartbeats while they
// work and answer each task once; the task broker (actors/task_broker.hpp)
// answers every call, this file only translates (http/task_json.hpp).
#include <mutex>
#include <type_traits>

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

/// Answers `rq` later with what `write` makes of the broker's answer: the
/// connection's I/O thread goes on, and no thread waits meanwhile.
template <class T, class Write>
std::function<void(caf::expected<T>)> answer_later(const router& r, request& rq, Write write) {
  auto answer = std::make_shared<deferred_answer>();
  rq.answer_later(answer);
  return [answer, rp = &r, path = rq.raw.path, write](caf::expected<T> got) {
    if (!got) {
      answer->deliver([rp, path, err = from_engine(got.error())](server_response& res) {
        rp->write(path, res, err);
      });
      return;
    }
    boost::json::object body;
    if constexpr (std::is_void_v<T>)
      body = write();
    else
      body = write(*got);
    answer->deliver([body = std::move(body)](server_response& res) { write_json(res, 200, body); });
  };
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
  ctx.eng.poll_tasks(p, answer_later<std::vector<task_lease>>(r, rq, [](const auto& got) {
                       boost::json::array tasks;
                       for (auto& t : got)
                         tasks.push_back(to_json(t));
                       return boost::json::object{{"tasks", std::move(tasks)}};
                     }));
}

void task_heartbeat(const router& r, const route_context& ctx, request& rq, server_response& res) {
  boost::json::value body;
  task_beat b;
  b.token = rq.params[0];
  if (!read_task_body(r, ctx, rq, res, body))
    return;
  if (auto err = decode_task_beat(body, b))
    return r.write(rq.raw.path, res, *err);
  ctx.eng.heartbeat_task(b, answer_later<task_beat_result>(r, rq, [](const task_beat_result& x) {
                           return boost::json::object{{"cancel_requested", x.cancel_requested}};
                         }));
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
  ctx.eng.answer_task(a, answer_later<void>(r, rq, [] {
                        return boost::json::object{{"accepted", true}};
                      }));
}

/// Several answers in one request (a worker that took a batch): each is
/// carried out as its own `complete` would be, and the answer says, per
/// token, whether it was accepted or why not.
void task_batch_complete(const router& r, const route_context& ctx, request& rq,
                         server_response& res) {
  boost::json::value body;
  if (!read_task_body(r, ctx, rq, res, body))
    return;
  auto* obj = body.if_object();
  auto* list = obj ? obj->if_contains("tasks") : nullptr;
  if (!obj || obj->size() != 1 || !list || !list->is_array() || list->as_array().empty()
      || list->as_array().size() > 100)
    return r.write(rq.raw.path, res,
                   invalid_argument("body must be {\"tasks\": [...]}: 1 to 100 objects, each "
                                    "{\"token\", \"data\"} as a single complete takes"));
  std::vector<task_answer> answers;
  for (auto& item : list->as_array()) {
    task_answer a;
    auto* fields = item.if_object();
    auto* token = fields ? fields->if_contains("token") : nullptr;
    if (!token || !token->is_string())
      return r.write(rq.raw.path, res,
                     invalid_argument("tasks[" + std::to_string(answers.size())
                                      + "].token: must be the token a poll returned"));
    a.token = std::string(token->as_string());
    boost::json::object rest = *fields;
    rest.erase("token");
    if (auto err = decode_task_answer(rest, a)) {
      err->message = "tasks[" + std::to_string(answers.size()) + "]: " + err->message;
      return r.write(rq.raw.path, res, *err);
    }
    answers.push_back(std::move(a));
  }
  struct gather {
    std::mutex mtx;
    boost::json::array items;
    size_t left = 0;
  };
  auto all = std::make_shared<gather>();
  all->items.resize(answers.size());
  all->left = answers.size();
  auto answer = std::make_shared<deferred_answer>();
  rq.answer_later(answer);
  for (size_t i = 0; i < answers.size(); ++i)
    ctx.eng.answer_task(answers[i], [all, answer, i, token = answers[i].token](auto got) {
      boost::json::object item{{"token", token}};
      if (got) {
        item["accepted"] = true;
      } else {
        auto err = from_engine(got.error());
        item["error"] = {{"code", err.code}, {"message", err.message}};
      }
      std::lock_guard<std::mutex> guard{all->mtx};
      all->items[i] = std::move(item);
      if (--all->left == 0)
        answer->deliver([body = boost::json::object{{"items", std::move(all->items)}}](
                          server_response& res) { write_json(res, 200, body); });
    });
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
  add_route(r, ctx, "POST", base + "/complete", task_batch_complete, true);
  // Each is one message to the broker, answered later: none blocks.
  add_route(r, ctx, "POST", base + "/{token}/heartbeat", task_heartbeat, true);
  add_route(r, ctx, "POST", base + "/{token}/complete",
            task_answer_route<task_answer::kind::complete>, true);
  add_route(r, ctx, "POST", base + "/{token}/fail", task_answer_route<task_answer::kind::fail>,
            true);
  add_route(r, ctx, "GET", base + "/queues", task_queues_route);
}

} // namespace stepwise::http
