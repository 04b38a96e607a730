// Service bindings (PUT|GET|DELETE .../service_bindings/{binding_id} and
// their last_operation). A binding is a bind_runtime operation keyed
// osb_bind_key(instance, binding) whose data keeps a generated password as
// a secret (sealed with the key ring at rest, "***" in events, logs and the
// API); GET opens it for the platform, the one place it is shown. Its
// removal is an unbind_runtime operation keyed osb_unbind_key.

#include "engine/errc.hpp"
#include "engine/sealed_json.hpp"
#include "http/body.hpp"
#include "http/osb_catalog.hpp"
#include "http/osb_describe.hpp"
#include "http/osb_instance.hpp"
#include "http/reply.hpp"

namespace stepwise::http {

namespace json = boost::json;

namespace {

// The instance's request fields a binding is made with: a PUT with other
// ones is a 409.
json::object binding_request(const json::object& body) {
  json::object out;
  for (auto key : {"plan_id", "parameters", "bind_resource", "app_guid"})
    if (auto v = body.if_contains(key); v != nullptr && !v->is_null())
      out[key] = *v;
  return out;
}

// The binding's answer to the platform: its credential opened.
caf::expected<json::object> binding_body(const osb_context& c, const operation& bind) {
  auto sealed = bind.data.if_contains("password");
  if (sealed == nullptr)
    return make_error(errc::invalid_state, "binding " + bind.id + " kept no credential");
  auto opened = open_value(*sealed, c.keys.get(), bind.id);
  if (!opened)
    return std::move(opened.error());
  json::object creds;
  if (auto url = bind.data.if_contains("url"))
    creds["url"] = *url;
  if (auto user = bind.data.if_contains("username"))
    creds["username"] = *user;
  creds["password"] = std::move(*opened);
  json::object body{{"credentials", std::move(creds)}};
  if (auto p = bind.input->if_contains("request"); p != nullptr && p->is_object())
    if (auto params = p->get_object().if_contains("parameters"))
      body["parameters"] = *params;
  return body;
}

// A binding and its removal, each with the engine's current state.
struct binding_ops {
  std::optional<operation> bind;
  std::optional<operation> unbind;
};

caf::expected<binding_ops> find_binding(const osb_context& c, const std::string& id,
                                        const std::string& bid) {
  binding_ops out;
  auto bind = osb_find_live(c, osb_bind_key(id, bid));
  if (!bind)
    return std::move(bind.error());
  out.bind = std::move(*bind);
  auto unbind = osb_find_live(c, osb_unbind_key(id, bid));
  if (!unbind)
    return std::move(unbind.error());
  out.unbind = std::move(*unbind);
  return out;
}

api_error no_binding(const std::string& bid, const char* why) {
  return osb_error(404, "NotFound", "service binding " + bid + " " + why);
}

void put_binding(const router& r, const osb_context& c, request& rq, server_response& res) {
  auto& id = rq.params[0];
  auto& bid = rq.params[1];
  json::object obj;
  if (auto err = osb_parse_body(c, rq.body, true, obj))
    return r.write(rq.raw.path, res, *err);
  auto& plan = obj.at("plan_id");
  if (auto p = obj.if_contains("parameters");
      p != nullptr && !p->is_null() && (!p->is_object() || !p->get_object().empty()))
    return r.write(rq.raw.path, res,
                   osb_error(400, "InvalidParameters", "bindings take no parameters"));
  if (!osb_accepts_incomplete(rq.raw))
    return r.write(rq.raw.path, res, osb_async_required());
  auto inst = find_osb_instance(c, id);
  if (!inst)
    return r.write(rq.raw.path, res, from_engine(inst.error()));
  if (*inst && (*inst)->deprovisioning && !is_terminal((*inst)->deprovisioning->state))
    return r.write(rq.raw.path, res, osb_concurrency_error("deprovisioning"));
  if (!*inst || (*inst)->deprovisioning)
    return r.write(rq.raw.path, res,
                   osb_error(404, "NotFound", "no service instance " + id + " to bind to"));
  auto& i = **inst;
  if (!osb_matches(i.runtime(), osb_service_id, std::string(plan.get_string())))
    return r.write(rq.raw.path, res, invalid_argument("plan_id is not the instance's"));
  auto request = binding_request(obj);
  auto ops = find_binding(c, id, bid);
  if (!ops)
    return r.write(rq.raw.path, res, from_engine(ops.error()));
  if (ops->unbind)
    return r.write(
      rq.raw.path, res,
      osb_error(409, "Conflict", "binding " + bid + " was unbound; binding ids are not reused"));
  if (auto& b = ops->bind) {
    auto made_with = b->input->if_contains("request");
    if (made_with == nullptr || *made_with != json::value(request))
      return r.write(
        rq.raw.path, res,
        osb_error(409, "Conflict", "binding " + bid + " exists with other parameters"));
    if (b->state == op_state::succeeded) {
      auto answer = binding_body(c, *b);
      if (!answer)
        return r.write(rq.raw.path, res, from_engine(answer.error()));
      return write_json(res, 200, *answer);
    }
    if (b->state == op_state::failed) {
      auto eng = c.eng;
      if (auto again = eng.retry(b->id); !again)
        return r.write(rq.raw.path, res, from_engine(again.error()));
    } else if (b->state == op_state::canceled) {
      return r.write(rq.raw.path, res,
                     osb_error(409, "Conflict", "binding " + bid + " was canceled"));
    }
    return write_json(res, 202, json::object{{"operation", b->id}});
  }
  if (auto err = i.refuses_change(id))
    return r.write(rq.raw.path, res, *err);
  start_request sr;
  sr.workflow = "bind_runtime";
  sr.idempotency_key = osb_bind_key(id, bid);
  sr.input = json::object{{"name", i.provisioning.input->at("name")},
                          {"runtime_operation_id", i.runtime().id},
                          {"request", std::move(request)},
                          {"broker", json::object{{"instance_id", id},
                                                  {"binding_id", bid},
                                                  {"service_id", osb_service_id},
                                                  {"plan_id", plan.get_string()}}}};
  auto eng = c.eng;
  auto started = eng.start(sr);
  if (!started && code_of(started.error()) == errc::idempotency_conflict)
    return r.write(rq.raw.path, res,
                   osb_error(409, "Conflict", "binding " + bid + " is being created"));
  if (!started)
    return r.write(rq.raw.path, res, from_engine(started.error()));
  write_json(res, 202, json::object{{"operation", started->op.id}});
}

void get_binding(const router& r, const osb_context& c, request& rq, server_response& res) {
  auto& id = rq.params[0];
  auto& bid = rq.params[1];
  auto ops = find_binding(c, id, bid);
  if (!ops)
    return r.write(rq.raw.path, res, from_engine(ops.error()));
  if (!ops->bind)
    return r.write(rq.raw.path, res, no_binding(bid, "does not exist"));
  if (ops->unbind)
    return r.write(rq.raw.path, res, no_binding(bid, "was unbound"));
  auto gone = c.find_by_key(osb_deprovision_key(id));
  if (!gone)
    return r.write(rq.raw.path, res, from_engine(gone.error()));
  if (*gone && (*gone)->state == op_state::succeeded)
    return r.write(rq.raw.path, res, no_binding(bid, "went with its deprovisioned instance"));
  if (!is_terminal(ops->bind->state))
    return r.write(rq.raw.path, res, no_binding(bid, "is still being created"));
  if (ops->bind->state != op_state::succeeded)
    return r.write(rq.raw.path, res, no_binding(bid, "failed"));
  auto answer = binding_body(c, *ops->bind);
  if (!answer)
    return r.write(rq.raw.path, res, from_engine(answer.error()));
  write_json(res, 200, *answer);
}

void delete_binding(const router& r, const osb_context& c, request& rq, server_response& res) {
  auto& id = rq.params[0];
  auto& bid = rq.params[1];
  if (rq.raw.params.get("service_id").empty() || rq.raw.params.get("plan_id").empty())
    return r.write(rq.raw.path, res,
                   invalid_argument("query parameters service_id and plan_id are required"));
  if (!osb_accepts_incomplete(rq.raw))
    return r.write(rq.raw.path, res, osb_async_required());
  auto ops = find_binding(c, id, bid);
  if (!ops)
    return r.write(rq.raw.path, res, from_engine(ops.error()));
  auto eng = c.eng;
  if (auto& u = ops->unbind) {
    if (u->state == op_state::succeeded)
      return write_json(res, 410, json::object{});
    if (u->state == op_state::failed)
      if (auto again = eng.retry(u->id); !again)
        return r.write(rq.raw.path, res, from_engine(again.error()));
    return write_json(res, 202, json::object{{"operation", u->id}});
  }
  auto& b = ops->bind;
  // Nothing was bound: there is nothing to remove.
  if (!b || b->state == op_state::failed || b->state == op_state::canceled)
    return write_json(res, 410, json::object{});
  if (!is_terminal(b->state))
    return r.write(rq.raw.path, res, osb_concurrency_error("binding " + bid + " is being created"));
  start_request sr;
  sr.workflow = "unbind_runtime";
  sr.idempotency_key = osb_unbind_key(id, bid);
  sr.input = json::object{{"name", b->input->at("name")},
                          {"bind_operation_id", b->id},
                          {"broker", b->input->at("broker")}};
  auto started = eng.start(sr);
  if (!started)
    return r.write(rq.raw.path, res, from_engine(started.error()));
  write_json(res, 202, json::object{{"operation", started->op.id}});
}

void binding_last_operation(const router& r, const osb_context& c, request& rq,
                            server_response& res) {
  auto& id = rq.params[0];
  auto& bid = rq.params[1];
  auto eng = c.eng;
  std::string op_id = rq.raw.params.get("operation");
  if (op_id.empty()) {
    auto ops = find_binding(c, id, bid);
    if (!ops)
      return r.write(rq.raw.path, res, from_engine(ops.error()));
    if (!ops->bind && !ops->unbind)
      return r.write(rq.raw.path, res, no_binding(bid, "does not exist"));
    op_id = ops->unbind ? ops->unbind->id : ops->bind->id;
  }
  auto op = eng.get(op_id);
  if (!op && code_of(op.error()) == errc::not_found)
    return r.write(rq.raw.path, res,
                   osb_error(404, "NotFound", "no operation " + op_id + " of binding " + bid));
  if (!op)
    return r.write(rq.raw.path, res, from_engine(op.error()));
  if (op->idempotency_key != osb_bind_key(id, bid)
      && op->idempotency_key != osb_unbind_key(id, bid))
    return r.write(rq.raw.path, res,
                   invalid_argument("operation " + op_id + " is not one of binding " + bid));
  write_json(res, 200, osb_last_operation(*op));
}

} // namespace

void add_osb_binding_routes(router& r, const std::shared_ptr<const osb_context>& c) {
  const std::string binding = "/v2/service_instances/{instance_id}/service_bindings/{binding_id}";
  add_osb_route(r, c, "PUT", binding, put_binding);
  add_osb_route(r, c, "GET", binding, get_binding);
  add_osb_route(r, c, "DELETE", binding, delete_binding);
  add_osb_route(r, c, "GET", binding + "/last_operation", binding_last_operation);
}

} // namespace stepwise::http
