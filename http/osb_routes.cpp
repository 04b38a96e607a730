// The Open Service Broker API v2.17 on /v2/: a platform provisions a
// runtime with PUT /v2/service_instances/{id}, polls last_operation, and
// deprovisions it with DELETE. The broker keeps no state of its own: an
// instance is the provision_runtime operation whose idempotency key is its
// id, and its deprovisioning the deprovision_runtime operation keyed
// osb_deprovision_key(id); its updates and bindings are in osb_update.cpp
// and osb_bindings.cpp (the keys: osb_instance.hpp).

#include "http/osb.hpp"

#include <cctype>

#include "engine/errc.hpp"
#include "http/body.hpp"
#include "http/osb_catalog.hpp"
#include "http/osb_describe.hpp"
#include "http/osb_instance.hpp"
#include "http/reply.hpp"

namespace stepwise::http {

namespace json = boost::json;

namespace {

using osb_ctx = std::shared_ptr<const osb_context>;

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

json::object operation_body(const operation& op) {
  return {{"operation", op.id}};
}

void provision(const router& r, const osb_context& c, request& rq, server_response& res) {
  auto& id = rq.params[0];
  json::object obj;
  if (auto err = osb_parse_body(c, rq.body, true, obj))
    return r.write(rq.raw.path, res, *err);
  auto plan = find_osb_plan(obj.at("plan_id").get_string());
  if (plan == nullptr)
    return r.write(rq.raw.path, res, invalid_argument("unknown plan_id (see GET /v2/catalog)"));
  if (!osb_accepts_incomplete(rq.raw))
    return r.write(rq.raw.path, res, osb_async_required());
  start_request sr;
  sr.by = osb_caller(rq.raw.headers.get("Authorization"));
  sr.workflow = "provision_runtime";
  sr.idempotency_key = id;
  if (auto err = osb_provision_input(id, *plan, obj.if_contains("parameters"), sr.input))
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
    if (code_of(started.error()) == errc::idempotency_conflict)
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
  if (!osb_accepts_incomplete(rq.raw))
    return r.write(rq.raw.path, res, osb_async_required());
  auto inst = find_osb_instance(c, id);
  if (!inst)
    return r.write(rq.raw.path, res, from_engine(inst.error()));
  if (!*inst)
    return write_json(res, 410, json::object{});
  // The plan is the newest applied update's.
  if (!osb_matches((*inst)->runtime(), service, plan))
    return r.write(rq.raw.path, res,
                   invalid_argument("service_id or plan_id is not the instance's"));
  auto& prov = (*inst)->provisioning;
  if (auto what = (*inst)->busy(); what && *what != "deprovisioning")
    return r.write(rq.raw.path, res, osb_concurrency_error(*what));
  // Nothing was created: there is nothing to delete.
  if (!prov.data.contains("infrastructure"))
    return write_json(res, 200, json::object{});
  start_request sr;
  sr.by = osb_caller(rq.raw.headers.get("Authorization"));
  sr.workflow = "deprovision_runtime";
  sr.idempotency_key = osb_deprovision_key(id);
  // Bindings need not be removed first (the specification leaves it to
  // the broker): their credentials go with the runtime.
  sr.input = json::object{{"provision_operation_id", prov.id},
                          {"runtime_operation_id", (*inst)->runtime().id},
                          {"name", prov.input->at("name")}};
  auto eng = c.eng;
  auto started = eng.start(sr);
  if (!started)
    return r.write(rq.raw.path, res, from_engine(started.error()));
  auto& op = started->op;
  if (!started->created && op.state == op_state::succeeded)
    return write_json(res, 410, json::object{});
  // A platform deletes again after a failure: that retries it.
  if (!started->created && (op.state == op_state::failed || op.state == op_state::canceled)) {
    auto again = eng.retry(op.id, sr.by);
    if (!again)
      return r.write(rq.raw.path, res, from_engine(again.error()));
  }
  write_json(res, 202, operation_body(op));
}

// Returns whether `op` is one of instance `id`'s.
bool of_instance(const operation& op, const std::string& id) {
  auto& k = op.idempotency_key;
  return k == id || k == osb_deprovision_key(id) || k.rfind("osb-update:" + id + ":", 0) == 0;
}

void last_operation(const router& r, const osb_context& c, request& rq, server_response& res) {
  auto& id = rq.params[0];
  auto eng = c.eng;
  std::string op_id = rq.raw.params.get("operation");
  if (op_id.empty()) {
    // The newest of the instance's operations.
    auto inst = find_osb_instance(c, id);
    if (!inst)
      return r.write(rq.raw.path, res, from_engine(inst.error()));
    if (!*inst)
      return r.write(rq.raw.path, res, osb_error(404, "NotFound", "no service instance " + id));
    auto& i = **inst;
    op_id = i.deprovisioning ? i.deprovisioning->id
            : i.last_update  ? i.last_update->id
                             : i.provisioning.id;
  }
  auto op = eng.get(op_id);
  if (!op && code_of(op.error()) == errc::not_found)
    return r.write(rq.raw.path, res,
                   osb_error(404, "NotFound", "no operation " + op_id + " of instance " + id));
  if (!op)
    return r.write(rq.raw.path, res, from_engine(op.error()));
  if (!of_instance(*op, id))
    return r.write(rq.raw.path, res,
                   invalid_argument("operation " + op_id + " is not one of instance " + id));
  write_json(res, 200, osb_last_operation(*op));
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
  add_osb_route(r, c, "PUT", "/v2/service_instances/{instance_id}", provision);
  add_osb_route(r, c, "DELETE", "/v2/service_instances/{instance_id}", deprovision);
  add_osb_route(r, c, "GET", "/v2/service_instances/{instance_id}/last_operation", last_operation);
  add_osb_instance_routes(r, c);
  add_osb_binding_routes(r, c);
}

} // namespace stepwise::http
