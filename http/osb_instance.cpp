#include "http/osb_instance.hpp"

#include "http/body.hpp"
#include "http/osb_catalog.hpp"
#include "http/reply.hpp"

namespace stepwise::http {

api_error osb_error(int status, const char* code, std::string description) {
  return {status, code, std::move(description)};
}

api_error osb_async_required() {
  return osb_error(422, "AsyncRequired",
                   "This service plan requires client support for asynchronous "
                   "service operations: add ?accepts_incomplete=true");
}

api_error osb_concurrency_error(const std::string& what) {
  return osb_error(422, "ConcurrencyError",
                   "Another operation for this service instance is in progress (" + what
                     + "); try again once it has ended");
}

bool osb_accepts_incomplete(const server_request& req) {
  return req.params.get("accepts_incomplete") == "true";
}

std::string osb_update_key(const std::string& instance_id, int n) {
  return "osb-update:" + instance_id + ":" + std::to_string(n);
}

std::string osb_bind_key(const std::string& instance_id, const std::string& binding_id) {
  return "osb-bind:" + instance_id + ":" + binding_id;
}

std::string osb_unbind_key(const std::string& instance_id, const std::string& binding_id) {
  return "osb-unbind:" + instance_id + ":" + binding_id;
}

std::optional<std::string> osb_instance::busy() const {
  if (!is_terminal(provisioning.state))
    return std::string("provisioning");
  if (last_update && !is_terminal(last_update->state))
    return "update " + last_update->id;
  if (deprovisioning && !is_terminal(deprovisioning->state))
    return std::string("deprovisioning");
  return std::nullopt;
}

std::optional<api_error> osb_instance::refuses_change(const std::string& id) const {
  if (auto what = busy())
    return osb_concurrency_error(*what);
  if (provisioning.state != op_state::succeeded)
    return osb_error(422, "InstanceNotUsable",
                     "service instance " + id + " failed to provision: delete it");
  return std::nullopt;
}

caf::expected<std::optional<operation>> osb_find_live(const osb_context& c,
                                                      const std::string& key) {
  auto found = c.find_by_key(key);
  if (!found || !*found || is_terminal((*found)->state))
    return found;
  auto eng = c.eng;
  auto live = eng.get((*found)->id);
  if (!live)
    return std::move(live.error());
  // It ended between the two reads: the store has its final data (sealed
  // secrets, not the engine's masked copy) once it is committed.
  if (is_terminal(live->state)) {
    auto again = c.find_by_key(key);
    if (again && *again && is_terminal((*again)->state))
      return again;
  }
  (*found)->state = live->state;
  (*found)->steps = live->steps;
  (*found)->error = live->error;
  (*found)->data = live->data;
  return found;
}

caf::expected<std::optional<osb_instance>> find_osb_instance(const osb_context& c,
                                                             const std::string& id) {
  auto prov = osb_find_live(c, id);
  if (!prov)
    return std::move(prov.error());
  if (!*prov || (*prov)->workflow != "provision_runtime")
    return std::optional<osb_instance>{};
  osb_instance inst;
  inst.provisioning = std::move(**prov);
  auto gone = osb_find_live(c, osb_deprovision_key(id));
  if (!gone)
    return std::move(gone.error());
  inst.deprovisioning = std::move(*gone);
  // Updates are numbered without gaps: the newest is the last one found.
  for (int n = 1;; ++n) {
    auto up = osb_find_live(c, osb_update_key(id, n));
    if (!up)
      return std::move(up.error());
    if (!*up)
      break;
    inst.updates = n;
    if ((*up)->state == op_state::succeeded)
      inst.last_applied = **up;
    inst.last_update = std::move(*up);
  }
  return std::optional<osb_instance>{std::move(inst)};
}

std::optional<api_error> osb_parse_body(const osb_context& c, std::string_view body,
                                        bool plan_required, boost::json::object& out) {
  boost::json::value parsed;
  if (auto err = parse_json(body, c.max_json_depth, parsed))
    return err;
  auto obj = parsed.if_object();
  if (obj == nullptr)
    return invalid_argument("the body must be a JSON object");
  auto service = obj->if_contains("service_id");
  auto plan = obj->if_contains("plan_id");
  // The message names what the route requires.
  if (plan_required
      && (service == nullptr || !service->is_string() || plan == nullptr || !plan->is_string()))
    return invalid_argument("'service_id' and 'plan_id' are required strings");
  if (service == nullptr || !service->is_string())
    return invalid_argument("'service_id' is a required string");
  if (service->get_string() != osb_service_id)
    return invalid_argument("unknown service_id (see GET /v2/catalog)");
  out = std::move(*obj);
  return std::nullopt;
}

std::optional<api_error> find_live_osb_instance(const osb_context& c, const std::string& id,
                                                osb_instance& out) {
  auto inst = find_osb_instance(c, id);
  if (!inst)
    return from_engine(inst.error());
  auto gone = [&](const char* why) {
    return osb_error(404, "NotFound", "service instance " + id + " " + why);
  };
  if (!*inst)
    return gone("does not exist");
  if ((*inst)->deprovisioning && (*inst)->deprovisioning->state == op_state::succeeded)
    return gone("was deprovisioned");
  out = std::move(**inst);
  return std::nullopt;
}

const boost::json::object* osb_broker_fields(const operation& op) {
  if (!op.input)
    return nullptr;
  auto b = op.input->if_contains("broker");
  return b != nullptr ? b->if_object() : nullptr;
}

void add_osb_route(router& r, const std::shared_ptr<const osb_context>& c, const char* method,
                   std::string pattern, osb_handler h) {
  const router* rp = &r;
  r.add(method, std::move(pattern),
        [rp, c, h](request& rq, server_response& res) { h(*rp, *c, rq, res); });
}

} // namespace stepwise::http
