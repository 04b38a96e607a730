// Fetching and updating a service instance (GET and PATCH
// /v2/service_instances/{id}). An update is an update_runtime operation
// keyed osb_update_key(id, n), numbered on from the newest, so the broker
// finds the newest without any state of its own and two racing PATCHes
// cannot both take the same number.

#include "engine/errc.hpp"
#include "http/body.hpp"
#include "http/osb_catalog.hpp"
#include "http/osb_instance.hpp"
#include "http/reply.hpp"

namespace stepwise::http {

namespace json = boost::json;

namespace {

api_error no_instance(const std::string& id, const char* why) {
  return osb_error(404, "NotFound", "service instance " + id + " " + why);
}

// The runtime's settings a platform may see: the location's properties
// (its credentials) stay out.
json::object shown_parameters(const osb_instance& inst) {
  json::object out;
  auto& in = *inst.runtime().input;
  for (auto key : {"name", "template", "properties"})
    if (auto v = in.if_contains(key))
      out[key] = *v;
  if (auto loc = inst.provisioning.input->if_contains("deployment_location");
      loc != nullptr && loc->is_object()) {
    auto shown = loc->get_object();
    shown.erase("properties");
    out["deployment_location"] = std::move(shown);
  }
  return out;
}

void get_instance(const router& r, const osb_context& c, request& rq, server_response& res) {
  auto& id = rq.params[0];
  osb_instance i;
  if (auto err = find_live_osb_instance(c, id, i))
    return r.write(rq.raw.path, res, *err);
  if (!is_terminal(i.provisioning.state))
    return r.write(rq.raw.path, res, no_instance(id, "is still being provisioned"));
  if (i.provisioning.state != op_state::succeeded)
    return r.write(rq.raw.path, res, no_instance(id, "failed to provision"));
  if (i.last_update && !is_terminal(i.last_update->state))
    return r.write(rq.raw.path, res, osb_concurrency_error("update " + i.last_update->id));
  auto broker = osb_broker_fields(i.runtime());
  json::object body{{"service_id", osb_service_id},
                    {"plan_id", broker != nullptr ? broker->at("plan_id") : json::value("")},
                    {"parameters", shown_parameters(i)}};
  write_json(res, 200, body);
}

// Checks the PATCH's parameters: only the template and its inputs change;
// the name and location of a runtime are fixed at provisioning.
std::optional<api_error> check_update_parameters(const json::value* parameters, json::object& out) {
  if (parameters == nullptr || parameters->is_null())
    return std::nullopt;
  if (!parameters->is_object())
    return osb_error(400, "InvalidParameters", "'parameters' must be an object");
  for (auto& kv : parameters->get_object()) {
    auto k = kv.key();
    if (k == "name" || k == "deployment_location")
      return osb_error(400, "InvalidParameters",
                       "parameter '" + std::string(k) + "' cannot be changed by an update");
    if (k != "template" && k != "properties")
      return osb_error(400, "InvalidParameters",
                       "unknown parameter '" + std::string(k) + "' (known: template, properties)");
    if (k == "template" && (!kv.value().is_string() || kv.value().get_string().empty()))
      return osb_error(400, "InvalidParameters", "parameter 'template' must be a non-empty string");
    if (k == "properties" && !kv.value().is_object())
      return osb_error(400, "InvalidParameters", "parameter 'properties' must be an object");
    out[k] = kv.value();
  }
  return std::nullopt;
}

// The update_runtime input: the runtime's settings now, with the plan's
// template type and the parameters given laid over them.
json::object update_input(const osb_instance& inst, const std::string& id, const osb_plan& plan,
                          const json::object& changes) {
  auto& now = *inst.runtime().input;
  json::object in;
  for (auto key : {"name", "template", "properties"})
    if (auto v = now.if_contains(key))
      in[key] = *v;
  for (auto& kv : changes)
    in[kv.key()] = kv.value();
  in["template_type"] = plan.template_type;
  in["provision_operation_id"] = inst.provisioning.id;
  in["runtime_operation_id"] = inst.runtime().id;
  in["broker"] =
    json::object{{"instance_id", id}, {"service_id", osb_service_id}, {"plan_id", plan.id}};
  return in;
}

void patch_instance(const router& r, const osb_context& c, request& rq, server_response& res) {
  auto& id = rq.params[0];
  json::object obj;
  // The plan may stay as it is: one left out is checked below.
  if (auto err = osb_parse_body(c, rq.body, false, obj))
    return r.write(rq.raw.path, res, *err);
  const osb_plan* plan = nullptr;
  if (auto p = obj.if_contains("plan_id"); p != nullptr) {
    plan = p->is_string() ? find_osb_plan(p->get_string()) : nullptr;
    if (plan == nullptr)
      return r.write(rq.raw.path, res, invalid_argument("unknown plan_id (see GET /v2/catalog)"));
  }
  json::object changes;
  if (auto err = check_update_parameters(obj.if_contains("parameters"), changes))
    return r.write(rq.raw.path, res, *err);
  if (!osb_accepts_incomplete(rq.raw))
    return r.write(rq.raw.path, res, osb_async_required());
  osb_instance i;
  if (auto err = find_live_osb_instance(c, id, i))
    return r.write(rq.raw.path, res, *err);
  if (plan == nullptr) {
    auto broker = osb_broker_fields(i.runtime());
    auto current = broker != nullptr ? broker->if_contains("plan_id") : nullptr;
    plan =
      current != nullptr && current->is_string() ? find_osb_plan(current->get_string()) : nullptr;
    if (plan == nullptr)
      return r.write(rq.raw.path, res, internal_error("the instance's plan is unknown"));
  }
  auto in = update_input(i, id, *plan, changes);
  // The same PATCH again while it runs: the same operation (202).
  if (i.last_update && !is_terminal(i.last_update->state) && *i.last_update->input == in)
    return write_json(res, 202, json::object{{"operation", i.last_update->id}});
  if (auto err = i.refuses_change(id))
    return r.write(rq.raw.path, res, *err);
  if (i.deprovisioning)
    return r.write(rq.raw.path, res, osb_concurrency_error("deprovisioning"));
  // Nothing to change: the update has no effect (200).
  auto& now = *i.runtime().input;
  auto same = [&](const char* key) {
    auto a = now.if_contains(key);
    auto b = in.if_contains(key);
    return (a == nullptr) == (b == nullptr) && (a == nullptr || *a == *b);
  };
  if (same("template") && same("template_type") && same("properties"))
    return write_json(res, 200, json::object{});
  start_request sr;
  sr.workflow = "update_runtime";
  sr.idempotency_key = osb_update_key(id, i.updates + 1);
  sr.input = std::move(in);
  auto eng = c.eng;
  auto started = eng.start(sr);
  // Another PATCH took this number first.
  if (!started && code_of(started.error()) == errc::idempotency_conflict)
    return r.write(rq.raw.path, res, osb_concurrency_error("another update"));
  if (!started)
    return r.write(rq.raw.path, res, from_engine(started.error()));
  write_json(res, 202, json::object{{"operation", started->op.id}});
}

} // namespace

void add_osb_instance_routes(router& r, const std::shared_ptr<const osb_context>& c) {
  add_osb_route(r, c, "GET", "/v2/service_instances/{instance_id}", get_instance);
  add_osb_route(r, c, "PATCH", "/v2/service_instances/{instance_id}", patch_instance);
}

} // namespace stepwise::http
