#include "http/task_json.hpp"

#include <algorithm>
#include <string_view>

#include "engine/duration_text.hpp"
#include "http/body.hpp"
#include "http/encode.hpp"
#include "http/json_fields.hpp"

namespace stepwise::http {

namespace {

namespace json = boost::json;

/// Returns the body as an object whose fields are all in `allowed`.
std::optional<api_error> object_of(const json::value& body,
                                   std::initializer_list<std::string_view> allowed,
                                   const json::object*& out) {
  out = body.if_object();
  if (out == nullptr)
    return wrong_type("body", "an object", body);
  for (auto& kv : *out)
    if (std::find(allowed.begin(), allowed.end(), kv.key()) == allowed.end()) {
      std::string names;
      for (auto& a : allowed)
        names += (names.empty() ? "" : ", ") + std::string(a);
      return invalid_argument("unknown field '" + std::string(kv.key()) + "' (allowed: " + names
                              + ")");
    }
  return std::nullopt;
}

std::optional<api_error> object_field(const json::object& obj, std::string_view field,
                                      json::object& out) {
  auto* v = obj.if_contains(field);
  if (v == nullptr || v->is_null())
    return std::nullopt;
  if (!v->is_object())
    return wrong_type(field, "an object", *v);
  out = v->get_object();
  return std::nullopt;
}

} // namespace

std::optional<api_error> decode_task_poll(const json::value& body, task_poll& out) {
  const json::object* obj = nullptr;
  if (auto err = object_of(body, {"queue", "worker", "max", "wait"}, obj))
    return err;
  if (auto err = required_text_field(*obj, "queue", out.queue))
    return err;
  if (auto err = required_text_field(*obj, "worker", out.worker))
    return err;
  if (auto* m = obj->if_contains("max"); m != nullptr && !m->is_null()) {
    if (!m->is_int64() || m->as_int64() < 1 || m->as_int64() > 100)
      return invalid_argument("field 'max' must be an integer from 1 to 100");
    out.max = static_cast<size_t>(m->as_int64());
  }
  std::optional<duration> wait;
  if (auto err = duration_field(*obj, "wait", wait))
    return err;
  if (wait && *wait > std::chrono::minutes(5))
    return invalid_argument("field 'wait' must be at most 5m");
  out.wait = wait.value_or(duration{0});
  return std::nullopt;
}

std::optional<api_error> decode_task_beat(const json::value& body, task_beat& out) {
  if (body.is_null())
    return std::nullopt;
  const json::object* obj = nullptr;
  if (auto err = object_of(body, {"details"}, obj))
    return err;
  return object_field(*obj, "details", out.details);
}

std::optional<api_error> decode_task_answer(const json::value& body, task_answer& out) {
  const json::object* obj = nullptr;
  if (out.what == task_answer::kind::complete) {
    if (body.is_null())
      return std::nullopt;
    if (auto err = object_of(body, {"data"}, obj))
      return err;
    return object_field(*obj, "data", out.data);
  }
  if (auto err = object_of(body, {"error", "retry_after", "non_retryable"}, obj))
    return err;
  if (auto err = required_text_field(*obj, "error", out.error))
    return err;
  if (auto err = duration_field(*obj, "retry_after", out.retry_after))
    return err;
  if (auto* n = obj->if_contains("non_retryable"); n != nullptr && !n->is_null()) {
    if (!n->is_bool())
      return wrong_type("non_retryable", "a boolean", *n);
    out.non_retryable = n->get_bool();
  }
  if (out.non_retryable && out.retry_after)
    return invalid_argument("fields 'retry_after' and 'non_retryable' are both given: a "
                            "non-retryable failure is not tried again");
  return std::nullopt;
}

json::object to_json(const task_lease& t) {
  json::value beat = nullptr;
  if (t.heartbeat_timeout)
    beat = format_duration_text(*t.heartbeat_timeout);
  return {{"token", t.token},
          {"operation_id", t.operation_id},
          {"workflow", t.workflow},
          {"step", t.step},
          {"attempt", t.attempt},
          {"input", t.input},
          {"data", t.data},
          {"deadline", time_or_null(t.deadline)},
          {"heartbeat_timeout", beat},
          {"details", t.details},
          {"ready_at", time_or_null(t.ready_at)}};
}

json::object to_json(const task_queue_view& q, time_point now) {
  json::array workers;
  for (auto& w : q.workers)
    workers.push_back({{"name", w.name}, {"last_seen", time_or_null(w.last_seen)}});
  json::value age = nullptr;
  if (q.oldest_ready)
    age = std::chrono::duration_cast<std::chrono::milliseconds>(now - *q.oldest_ready).count();
  return {{"name", q.name},
          {"ready", q.ready},
          {"taken", q.taken},
          {"pollers", q.pollers},
          {"oldest_ready_at", time_or_null(q.oldest_ready)},
          {"oldest_age_ms", age},
          {"workers", std::move(workers)}};
}

} // namespace stepwise::http
