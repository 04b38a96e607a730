#include "infra/completion_message.hpp"

#include "infra/task_json.hpp"

namespace stepwise::infra {

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
  out["outputs"] = outputs && outputs->is_object() ? *outputs : boost::json::object{};
  return out;
}

} // namespace stepwise::infra
