#include "http/osb_catalog.hpp"

#include <algorithm>
#include <vector>

namespace stepwise::http {

namespace json = boost::json;

namespace {

const osb_plan plans[] = {
  {"5d2e8f61-0b7c-4a93-9e4d-2c6f1a8b3e21", "tosca", "TOSCA",
   "A runtime described by a TOSCA template."},
  {"7a4c1e93-2f5b-4d08-b6a1-9e3d5c7f2b42", "heat", "HEAT",
   "A runtime described by an OpenStack Heat template."},
};

// The parameters of provision_runtime that a platform may pass
// (workflows/provision_runtime.cpp): its template_type comes from the plan.
constexpr const char* parameters_schema = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "type": "object",
  "additionalProperties": false,
  "required": ["deployment_location", "template"],
  "properties": {
    "name": {"type": "string", "minLength": 1, "description": "The runtime's name; default: the instance id."},
    "deployment_location": {
      "type": "object", "required": ["name"],
      "properties": {
        "name": {"type": "string", "minLength": 1, "description": "Where to provision (the driver's deployment location)."},
        "type": {"type": "string"},
        "properties": {"type": "object", "description": "The location's settings and credentials: stored as a secret, never shown."}}},
    "template": {"type": "string", "minLength": 1, "description": "The infrastructure template."},
    "properties": {"type": "object", "description": "Inputs of the template."}}
})json";

// What an update may change (http/osb_update.cpp): a runtime keeps its
// name and location; a plan change changes its template type.
constexpr const char* update_parameters_schema = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "template": {"type": "string", "minLength": 1, "description": "The new infrastructure template: the runtime is replaced by one made from it."},
    "properties": {"type": "object", "description": "The template's new inputs (replacing the old ones)."}}
})json";

json::value sorted(const json::value& v) {
  if (auto o = v.if_object()) {
    std::vector<std::string> keys;
    for (auto& kv : *o)
      keys.emplace_back(kv.key());
    std::sort(keys.begin(), keys.end());
    json::object out;
    for (auto& k : keys)
      out[k] = sorted(o->at(k));
    return out;
  }
  if (auto a = v.if_array()) {
    json::array out;
    for (auto& x : *a)
      out.push_back(sorted(x));
    return out;
  }
  return v;
}

bool non_empty_string(const json::value* v) {
  return v != nullptr && v->is_string() && !v->get_string().empty();
}

api_error bad_parameter(std::string what) {
  return {400, "InvalidParameters", std::move(what)};
}

std::optional<api_error> check_location(const json::value& v) {
  auto loc = v.if_object();
  if (loc == nullptr || !non_empty_string(loc->if_contains("name")))
    return bad_parameter("parameter 'deployment_location' must be an object "
                         "with a non-empty string 'name'");
  for (auto& kv : *loc) {
    if (kv.key() == "type" && !kv.value().is_string())
      return bad_parameter("parameter 'deployment_location.type' must be a string");
    if (kv.key() == "properties" && !kv.value().is_object())
      return bad_parameter("parameter 'deployment_location.properties' must be an object");
  }
  return std::nullopt;
}

} // namespace

const osb_plan* find_osb_plan(std::string_view id) {
  for (auto& p : plans)
    if (id == p.id)
      return &p;
  return nullptr;
}

const json::value& osb_catalog() {
  static const json::value catalog = [] {
    auto schema = json::parse(parameters_schema);
    auto update_schema = json::parse(update_parameters_schema);
    json::array ps;
    for (auto& p : plans)
      ps.push_back(json::object{
        {"id", p.id},
        {"name", p.name},
        {"description", p.description},
        {"free", true},
        {"bindable", true},
        {"plan_updateable", true},
        {"schemas",
         json::object{{"service_instance",
                       json::object{{"create", json::object{{"parameters", schema}}},
                                    {"update", json::object{{"parameters", update_schema}}}}}}}});
    json::object service{{"id", osb_service_id},
                         {"name", "stepwise-runtime"},
                         {"description",
                          "A runtime provisioned on a deployment location by stepwise's "
                          "durable provision_runtime workflow."},
                         {"tags", json::array{"stepwise", "runtime"}},
                         {"bindable", true},
                         {"instances_retrievable", true},
                         {"bindings_retrievable", true},
                         {"plan_updateable", true},
                         {"metadata", json::object{{"displayName", "stepwise runtime"}}},
                         {"plans", std::move(ps)}};
    return json::value(json::object{{"services", json::array{std::move(service)}}});
  }();
  return catalog;
}

std::optional<api_error> osb_provision_input(const std::string& instance_id, const osb_plan& plan,
                                             const json::value* parameters, json::object& out) {
  json::object params;
  if (parameters != nullptr && !parameters->is_null()) {
    if (!parameters->is_object())
      return bad_parameter("'parameters' must be an object");
    params = parameters->get_object();
  }
  for (auto& kv : params) {
    auto k = kv.key();
    if (k != "name" && k != "deployment_location" && k != "template" && k != "properties")
      return bad_parameter("unknown parameter '" + std::string(k)
                           + "' (known: name, deployment_location, template, properties)");
  }
  if (auto name = params.if_contains("name"); name != nullptr && !non_empty_string(name))
    return bad_parameter("parameter 'name' must be a non-empty string");
  auto loc = params.if_contains("deployment_location");
  if (loc == nullptr)
    return bad_parameter("parameter 'deployment_location' is required");
  if (auto err = check_location(*loc))
    return err;
  if (!non_empty_string(params.if_contains("template")))
    return bad_parameter("parameter 'template' is required and must be a non-empty string");
  if (auto p = params.if_contains("properties"); p != nullptr && !p->is_object())
    return bad_parameter("parameter 'properties' must be an object");
  json::object in = params;
  if (!in.contains("name"))
    in["name"] = instance_id;
  in["template_type"] = plan.template_type;
  in["broker"] = json::object{
    {"instance_id", instance_id}, {"service_id", osb_service_id}, {"plan_id", plan.id}};
  out = sorted(in).as_object();
  return std::nullopt;
}

} // namespace stepwise::http
