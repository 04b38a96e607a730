// The Open Service Broker API v2.17 on /v2/: a platform provisions a
// runtime with PUT /v2/service_instances/{id}, polls last_operation, and
// deprovisions it with DELETE. The broker keeps no state of its own: an
// instance is the provision_runtime operation whose idempotency key is its
// id, and its deprovisioning the deprovision_runtime operation keyed
// osb_deprovision_key(id).

#include "http/osb.hpp"

#include <cctype>

#include "engine/errc.hpp"
#include "http/body.hpp"
#include "http/osb_catalog.hpp"
#include "http/osb_describe.hpp"
#include "http/reply.hpp"

namespace stepwise::http {

namespace json = boost::json;

namespace {

using osb_ctx = std::shared_ptr<const osb_context>;

api_error osb_error(int status, const char* code, std::string description) {
  return {status, code, std::move(description)};
}

// The router's and the engine's snake_case codes as the broker's single
// CamelCase word ("not_found" -> "NotFound").
std::string camel(const std::string& code) {
  std::string out;
  bool upper = true;
  for (auto c : code) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out.push_back(upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
    upper = false;
  }
  return out;
}

void write_osb_error(server_response& res, const api_error& e) {
  res.status = e.status;
  if (e.status == 503)
    res.headers.set("Retry-After", "1");
  json::object body{
    {"error", camel(e.code)},
    {"description", e.message.empty() ? std::string("request failed") : valid_utf8(e.message)}};
  res.set_content(json::serialize(body), "application/json");
}

// 412 unless the platform speaks 2.13 or later of major version 2.
std::optional<api_error> check_version(const server_request& req) {
  auto v = req.headers.get("X-Broker-API-Version");
  auto dot = v.find('.');
  int major = -1;
  int minor = -1;
  if (dot != std::string::npos && dot > 0 && dot + 1 < v.size()
      && v.find_first_not_of("0123456789.") == std::string::npos
      && v.find('.', dot + 1) == std::string::npos) {
    major = std::atoi(v.substr(0, dot).c_str());
    minor = std::atoi(v.substr(dot + 1).c_str());
  }
  if (major == 2 && minor >= osb_min_minor)
    return std::nullopt;
  auto what = v.empty() ? std::string("the X-Broker-API-Version header is required")
                        : "X-Broker-API-Version " + v + " is not supported";
  return osb_error(412, "UnsupportedApiVersion",
                   what + "; this broker speaks 2.17 and accepts 2." + std::to_string(osb_min_minor)
                     + " or later");
}

bool accepts_incomplete(const server_request& req) {
  return req.params.get("accepts_incomplete") == "true";
}

api_error async_required() {
  return osb_error(422, "AsyncRequired",
                   "This service plan requires client support for asynchronous "
                   "service operations: add ?accepts_incomplete=true");
}

json::object operation_body(const operation& op) {
  return {{"operation", op.id}};
}

// The instance's provisioning (unmasked: only its id and input's broker
// fields are read), or nothing.
caf::expected<std::optional<operation>> provisioning_of(const osb_context& c,
                                                        const std::string& id) {
  auto found = c.find_by_key(id);
  if (!found || !*found)
    return found;
  if ((*found)->workflow != "provision_runtime")
    return std::optional<operation>{};
  return found;
}

void provision(const router& r, const osb_context& c, request& rq, server_response& res) {
  auto& id = rq.params[0];
  json::value body;
  if (auto err = parse_json(rq.body, c.max_json_depth, body))
    return r.write(rq.raw.path, res, *err);
  auto obj = body.if_object();
  if (obj == nullptr)
    return r.write(rq.raw.path, res, invalid_argument("the body must be a JSON object"));
  auto service = obj->if_contains("service_id");
  auto plan_id = obj->if_contains("plan_id");
  if (service == nullptr || !service->is_string() || plan_id == nullptr || !plan_id->is_string())
    return r.write(rq.raw.path, res,
                   invalid_argument("'service_id' and 'plan_id' are required strings"));
  if (service->get_string() != osb_service_id)
    return r.write(rq.raw.path, res, invalid_argument("unknown service_id (see GET /v2/catalog)"));
  auto plan = find_osb_plan(plan_id->get_string());
  if (plan == nullptr)
    return r.write(rq.raw.path, res, invalid_argument("unknown plan_id (see GET /v2/catalog)"));
  if (!accepts_incomplete(rq.raw))
    return r.write(rq.raw.path, res, async_required());
  start_request sr;
  sr.workflow = "provision_runtime";
  sr.idempotency_key = id;
  if (auto err = osb_provision_input(id, *plan, obj->if_contains("parameters"), sr.input))
    return r.write(rq.raw.path, res, *err);
  auto gone = c.find_by_key(osb_deprovision_key(id));
  if (!gone)
    return r.write(rq.raw.path, res, from_engine(gone.error()));
  if (*gone)
    return r.write(rq.raw.path, res,
                   osb_error(409, "Conflict",
                             "instance " + id + " was deprovisioned; instance ids are not reused"));
  auto eng = c.eng;
  auto started = eng.start(sr);
  if (!started) {
    if (code_of(started.error()) == static_cast<uint8_t>(errc::idempotency_conflict))
      return r.write(
        rq.raw.path, res,
        osb_error(409, "Conflict", "instance " + id + " exists with another plan or parameters"));
    return r.write(rq.raw.path, res, from_engine(started.error()));
  }
  // A repeated PUT: 200 once provisioned, else the same operation again.
  if (!started->created && started->op.state == op_state::succeeded)
    return write_json(res, 200, json::object{});
  write_json(res, 202, operation_body(started->op));
}

void deprovision(const router& r, const osb_context& c, request& rq, server_response& res) {
  auto& id = rq.params[0];
  auto service = rq.raw.params.get("service_id");
  auto plan = rq.raw.params.get("plan_id");
  if (service.empty() || plan.empty())
    return r.write(rq.raw.path, res,
                   invalid_argument("query parameters service_id and plan_id are required"));
  if (!accepts_incomplete(rq.raw))
    return r.write(rq.raw.path, res, async_required());
  auto prov = provisioning_of(c, id);
  if (!prov)
    return r.write(rq.raw.path, res, from_engine(prov.error()));
  if (!*prov)
    return write_json(res, 410, json::object{});
  if (!osb_matches(**prov, service, plan))
    return r.write(rq.raw.path, res,
                   invalid_argument("service_id or plan_id is not the instance's"));
  auto eng = c.eng;
  auto live = eng.get((*prov)->id);
  if (!live)
    return r.write(rq.raw.path, res, from_engine(live.error()));
  if (!is_terminal(live->state))
    return r.write(rq.raw.path, res,
                   osb_error(422, "ConcurrencyError",
                             "instance " + id
                               + " is still being provisioned; "
                                 "delete it once last_operation says succeeded or failed"));
  // Nothing was created: there is nothing to delete.
  if (!live->data.contains("infrastructure"))
    return write_json(res, 200, json::object{});
  start_request sr;
  sr.workflow = "deprovision_runtime";
  sr.idempotency_key = osb_deprovision_key(id);
  sr.input = json::object{{"provision_operation_id", live->id}};
  auto started = eng.start(sr);
  if (!started)
    return r.write(rq.raw.path, res, from_engine(started.error()));
  auto& op = started->op;
  if (!started->created && op.state == op_state::succeeded)
    return write_json(res, 410, json::object{});
  // A platform deletes again after a failure: that retries it.
  if (!started->created && (op.state == op_state::failed || op.state == op_state::canceled)) {
    auto again = eng.retry(op.id);
    if (!again)
      return r.write(rq.raw.path, res, from_engine(again.error()));
  }
  write_json(res, 202, operation_body(op));
}

void last_operation(const router& r, const osb_context& c, request& rq, server_response& res) {
  auto& id = rq.params[0];
  auto eng = c.eng;
  std::string op_id = rq.raw.params.get("operation");
  if (op_id.empty()) {
    // The newest of the instance's operations: its deprovisioning, if any.
    auto gone = c.find_by_key(osb_deprovision_key(id));
    if (!gone)
      return r.write(rq.raw.path, res, from_engine(gone.error()));
    auto prov = gone && *gone ? std::move(gone) : provisioning_of(c, id);
    if (!prov)
      return r.write(rq.raw.path, res, from_engine(prov.error()));
    if (!*prov)
      return r.write(rq.raw.path, res, osb_error(404, "NotFound", "no service instance " + id));
    op_id = (*prov)->id;
  }
  auto op = eng.get(op_id);
  if (!op && code_of(op.error()) == static_cast<uint8_t>(errc::not_found))
    return r.write(rq.raw.path, res,
                   osb_error(404, "NotFound", "no operation " + op_id + " of instance " + id));
  if (!op)
    return r.write(rq.raw.path, res, from_engine(op.error()));
  if (op->idempotency_key != id && op->idempotency_key != osb_deprovision_key(id))
    return r.write(rq.raw.path, res,
                   invalid_argument("operation " + op_id + " is not one of instance " + id));
  write_json(res, 200, osb_last_operation(*op));
}

using osb_handler = void (*)(const router&, const osb_context&, request&, server_response&);

void add(router& r, const osb_ctx& c, const char* method, std::string pattern, osb_handler h) {
  const router* rp = &r;
  r.add(method, std::move(pattern),
        [rp, c, h](request& rq, server_response& res) { h(*rp, *c, rq, res); });
}

} // namespace

std::string osb_deprovision_key(const std::string& instance_id) {
  return "osb-deprovision:" + instance_id;
}

void add_osb_routes(router& r, osb_context ctx) {
  auto c = std::make_shared<const osb_context>(std::move(ctx));
  r.set_error_writer("/v2/", write_osb_error);
  r.add_guard([c](const server_request& req, const router::route& route,
                  server_response& res) -> std::optional<api_error> {
    if (route.pattern.rfind("/v2/", 0) != 0)
      return std::nullopt;
    if (!c->credentials->check(req.headers.get("Authorization"))) {
      res.headers.set("WWW-Authenticate", "Basic realm=\"stepwise-broker\"");
      return osb_error(401, "Unauthorized", "the broker's basic credentials are required");
    }
    return check_version(req);
  });
  r.add("GET", "/v2/catalog",
        [](request&, server_response& res) { write_json(res, 200, osb_catalog()); });
  add(r, c, "PUT", "/v2/service_instances/{instance_id}", provision);
  add(r, c, "DELETE", "/v2/service_instances/{instance_id}", deprovision);
  add(r, c, "GET", "/v2/service_instances/{instance_id}/last_operation", last_operation);
}

} // namespace stepwise::http
