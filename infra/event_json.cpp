#include "infra/event_json.hpp"

#include "infra/task_json.hpp"

namespace stepwise::infra {

boost::json::object event_json(const event& e) {
  boost::json::object out;
  // Extra fields first so that they can never shadow the standard ones.
  for (auto& kv : e.extra)
    out[kv.key()] = kv.value();
  out["seq"] = e.seq;
  out["time"] = format_time(e.time);
  out["operation_id"] = e.operation_id;
  out["type"] = to_string(e.type);
  if (!e.step.empty())
    out["step"] = e.step;
  if (e.attempt != 0)
    out["attempt"] = e.attempt;
  if (!e.state.empty())
    out["state"] = e.state;
  if (!e.error.empty())
    out["error"] = e.error;
  return out;
}

std::string completion_request_id(const event& e) {
  if (e.type != event_type::infrastructure_task_completed)
    return {};
  auto ids = ids_from_json(e.extra);
  return ids ? ids->request_id : std::string{};
}

std::optional<boost::json::object> completion_message(const event& e) {
  if (e.type != event_type::infrastructure_task_completed)
    return std::nullopt;
  auto ids = ids_from_json(e.extra).value_or(accepted{});
  auto status = e.extra.if_contains("status");
  boost::json::object out{{"requestId", ids.request_id},
                          {"infrastructureId", ids.infrastructure_id},
                          {"status", status && status->is_string() ? *status : ""}};
  // The monitor writes failure_details only for FAILED tasks (null else).
  if (auto f = e.extra.if_contains("failure_details"); f && f->is_object())
    out["failureDetails"] = *f;
  auto outputs = e.extra.if_contains("outputs");
  out["outputs"] = outputs && outputs->is_object() ? *outputs
                                                   : boost::json::object{};
  return out;
}

} // namespace stepwise::infra
