#include "infra/task_json.hpp"

namespace stepwise::infra {

namespace {

std::string string_at(const boost::json::object& obj, std::string_view key) {
  if (auto v = obj.if_contains(key); v != nullptr && v->is_string())
    return std::string(v->get_string());
  return {};
}

} // namespace

std::optional<deployment_location> location_from_json(const boost::json::value* v) {
  if (v == nullptr || !v->is_object())
    return std::nullopt;
  auto& obj = v->get_object();
  deployment_location loc;
  loc.name = string_at(obj, "name");
  if (loc.name.empty())
    return std::nullopt;
  loc.type = string_at(obj, "type");
  if (auto p = obj.if_contains("properties"); p != nullptr && p->is_object())
    loc.properties = p->get_object();
  return loc;
}

boost::json::object task_event(const task& t) {
  boost::json::object out;
  out["infrastructure_id"] = t.infrastructure_id;
  out["request_id"] = t.request_id;
  out["status"] = to_string(t.status);
  if (t.failure)
    out["failure_details"] = boost::json::object{{"failureCode", to_string(t.failure->code)},
                                                 {"description", t.failure->description}};
  else
    out["failure_details"] = nullptr;
  out["outputs"] = t.outputs;
  return out;
}

boost::json::object internal_error_event(const std::string& infrastructure_id,
                                         const std::string& request_id, std::string description) {
  task t;
  t.infrastructure_id = infrastructure_id;
  t.request_id = request_id;
  t.status = task_status::failed;
  t.failure = failure_details{failure_code::internal_error, std::move(description)};
  return task_event(t);
}

boost::json::object ids_json(const accepted& ids) {
  return {{"infrastructure_id", ids.infrastructure_id}, {"request_id", ids.request_id}};
}

std::optional<accepted> ids_from_json(const boost::json::value* v) {
  if (v == nullptr || !v->is_object())
    return std::nullopt;
  return ids_from_json(v->get_object());
}

std::optional<accepted> ids_from_json(const boost::json::object& obj) {
  accepted out{string_at(obj, "infrastructure_id"), string_at(obj, "request_id")};
  if (out.infrastructure_id.empty() || out.request_id.empty())
    return std::nullopt;
  return out;
}

} // namespace stepwise::infra
