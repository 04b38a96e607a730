#include "http/infrastructure_routes.hpp"

#include "engine/errc.hpp"
#include "http/body.hpp"
#include "http/reply.hpp"
#include "infra/ignition_json.hpp"

namespace stepwise::http {

namespace json = boost::json;

using infra::decode_create_request;
using infra::decode_delete_request;
using infra::decode_find_request;
using infra::decode_task_query;
using infra::encode;
using infra::encode_error;

namespace {

/// Calls the driver and waits for its answer on this HTTP worker (a thread
/// that serves one request at a time anyway).
template <class T, class Start>
infra::result<T> call_driver(const infrastructure_context& ctx, Start start) {
  return infra::wait_for<T>(std::move(start), ctx.driver_timeout);
}

constexpr const char* base = "/api/infrastructure";

// The statuses Ignition gives its driver errors (invalid template, unknown
// infrastructure or request, unreachable location: 400; temporary: 503; any
// other: 500): clients written for Ignition drivers rely on them.
int status_of(infra::error_kind k) {
  switch (k) {
    case infra::error_kind::invalid_template:
    case infra::error_kind::not_found:
    case infra::error_kind::request_not_found:
    case infra::error_kind::unreachable_location:
      return 400;
    case infra::error_kind::temporary:
      return 503;
    case infra::error_kind::infrastructure_error:
      return 500;
  }
  return 500;
}

api_error from_driver(const infra::error& e) {
  return {status_of(e.kind), std::string(to_string(e.kind)), e.message};
}

// Writes the spec's error body; 503s also say when to come back.
void write_ignition_error(server_response& res, const api_error& e) {
  res.status = e.status;
  if (e.status == 503)
    res.headers.set("Retry-After", "1");
  res.set_content(json::serialize(encode_error(e.message, e.status)), "application/json");
}

// Parses and decodes the body into `out`; answers the error and returns
// false when it cannot.
template <class T, class Decoder>
bool decode_body(const router& r, infrastructure_context& ctx, request& rq, server_response& res,
                 Decoder decode, T& out) {
  json::value body;
  if (auto err = parse_json(rq.body, ctx.max_json_depth, body)) {
    r.write(rq.raw.path, res, *err);
    return false;
  }
  if (auto err = decode(body, out)) {
    r.write(rq.raw.path, res, invalid_argument(*err));
    return false;
  }
  return true;
}

// An empty template is refused here, so that every driver agrees on it; an
// unparseable one is the driver's call (invalid_template).
bool template_given(const router& r, request& rq, server_response& res, const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") != std::string::npos)
    return true;
  r.write(rq.raw.path, res,
          {400, "invalid_template",
           "Template included in request was invalid: field 'template' is "
           "empty"});
  return false;
}

// Hands an accepted task to its monitor and answers 202 only once the
// monitor is durably started: a task the client was told about is never
// forgotten.
void monitor(const router& r, infrastructure_context& ctx, request& rq, server_response& res,
             const infra::accepted& a, const infra::deployment_location& loc, const char* kind) {
  start_request sr;
  sr.workflow = infrastructure_task_workflow;
  sr.input = {{"infrastructure_id", a.infrastructure_id},
              {"request_id", a.request_id},
              {"deployment_location", encode(loc)},
              {"kind", kind}};
  sr.idempotency_key = infrastructure_task_key(a.request_id);
  sr.by = caller_name(ctx.auth.get(), rq.raw.headers.get("Authorization"));
  auto started = ctx.eng.start(sr);
  // A conflict means this request id is already monitored (the request was
  // answered before with other location details): nothing is forgotten.
  if (!started && code_of(started.error()) != errc::idempotency_conflict) {
    auto e = from_engine(started.error());
    // A start that timed out may still complete; anything else did not.
    bool maybe = e.code == "timeout";
    auto msg = std::string(kind) + " request '" + a.request_id + "' for infrastructure '"
               + a.infrastructure_id + "' was accepted by the driver, but its monitor "
               + (maybe ? "was not confirmed in time (" : "could not be started (") + e.message
               + "): the task " + (maybe ? "may not be monitored" : "is not monitored");
    if (ctx.warn)
      ctx.warn(msg);
    r.write(rq.raw.path, res, {e.status == 503 ? 503 : 500, "monitor_not_started", msg});
    return;
  }
  write_json(res, 202, encode(a));
}

void create(const router& r, infrastructure_context& ctx, request& rq, server_response& res) {
  infra::create_request req;
  if (!decode_body(r, ctx, rq, res, decode_create_request, req)
      || !template_given(r, rq, res, req.template_text))
    return;
  auto got = call_driver<infra::accepted>(ctx, [&](infra::callback<infra::accepted> done) {
    ctx.driver->create(req, std::move(done), {});
  });
  if (auto err = std::get_if<infra::error>(&got))
    return r.write(rq.raw.path, res, from_driver(*err));
  monitor(r, ctx, rq, res, std::get<infra::accepted>(got), req.location, "create");
}

void delete_infra(const router& r, infrastructure_context& ctx, request& rq, server_response& res) {
  infra::delete_request req;
  if (!decode_body(r, ctx, rq, res, decode_delete_request, req))
    return;
  auto got = call_driver<infra::accepted>(ctx, [&](infra::callback<infra::accepted> done) {
    ctx.driver->remove(req.infrastructure_id, req.location, std::move(done), {});
  });
  if (auto err = std::get_if<infra::error>(&got))
    return r.write(rq.raw.path, res, from_driver(*err));
  monitor(r, ctx, rq, res, std::get<infra::accepted>(got), req.location, "delete");
}

void query_task(const router& r, infrastructure_context& ctx, request& rq, server_response& res) {
  infra::task_query req;
  if (!decode_body(r, ctx, rq, res, decode_task_query, req))
    return;
  auto got = call_driver<infra::task>(ctx, [&](infra::callback<infra::task> done) {
    ctx.driver->get_task(req.infrastructure_id, req.request_id, req.location, std::move(done));
  });
  if (auto err = std::get_if<infra::error>(&got))
    return r.write(rq.raw.path, res, from_driver(*err));
  write_json(res, 200, encode(std::get<infra::task>(got)));
}

void find_infra(const router& r, infrastructure_context& ctx, request& rq, server_response& res) {
  infra::find_request req;
  if (!decode_body(r, ctx, rq, res, decode_find_request, req)
      || !template_given(r, rq, res, req.template_text))
    return;
  auto got = call_driver<std::optional<infra::found>>(
    ctx, [&](infra::callback<std::optional<infra::found>> done) {
      ctx.driver->find(req.template_text, req.template_type, req.instance_name, req.location,
                       std::move(done));
    });
  if (auto err = std::get_if<infra::error>(&got))
    return r.write(rq.raw.path, res, from_driver(*err));
  write_json(res, 200, encode(std::get<std::optional<infra::found>>(got)));
}

} // namespace

std::string infrastructure_task_key(const std::string& request_id) {
  return "infrastructure-task:" + request_id;
}

void add_infrastructure_routes(router& r, infrastructure_context ctx) {
  r.set_error_writer(std::string(base) + "/", write_ignition_error);
  // The router outlives its routes, so handlers may keep a reference to it.
  const router* rp = &r;
  auto c = std::make_shared<infrastructure_context>(std::move(ctx));
  using fn = void (*)(const router&, infrastructure_context&, request&, server_response&);
  auto mount = [&](const char* name, fn f) {
    r.add("POST", std::string(base) + "/" + name,
          [rp, c, f](request& rq, server_response& res) { f(*rp, *c, rq, res); });
  };
  mount("create", create);
  mount("delete", delete_infra);
  mount("query", query_task);
  mount("find", find_infra);
}

} // namespace stepwise::http
