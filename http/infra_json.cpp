#include "http/infra_json.hpp"

namespace stepwise::http {

namespace json = boost::json;

namespace {

std::string join(const std::string& at, const char* name) {
  return at.empty() ? std::string(name) : at + "." + name;
}

decode_error need_object(const json::value& v, const std::string& at,
                         const json::object*& out) {
  if (!v.is_object())
    return at.empty() ? std::string("the body must be a JSON object")
                      : "field '" + at + "' must be an object";
  out = &v.get_object();
  return {};
}

decode_error need_string(const json::object& o, const std::string& at,
                         const char* name, std::string& out) {
  auto path = join(at, name);
  auto p = o.if_contains(name);
  if (p == nullptr)
    return "missing required field '" + path + "'";
  if (!p->is_string())
    return "field '" + path + "' must be a string";
  out = std::string(p->get_string());
  return {};
}

decode_error opt_string(const json::object& o, const std::string& at,
                        const char* name, std::string& out) {
  auto p = o.if_contains(name);
  if (p == nullptr || p->is_null())
    return {};
  if (!p->is_string())
    return "field '" + join(at, name) + "' must be a string";
  out = std::string(p->get_string());
  return {};
}

decode_error opt_object(const json::object& o, const std::string& at,
                        const char* name, json::object& out) {
  auto p = o.if_contains(name);
  if (p == nullptr || p->is_null())
    return {};
  if (!p->is_object())
    return "field '" + join(at, name) + "' must be an object";
  out = p->get_object();
  return {};
}

decode_error need_location(const json::object& o, infra::deployment_location& out) {
  auto p = o.if_contains("deploymentLocation");
  if (p == nullptr)
    return std::string("missing required field 'deploymentLocation'");
  return decode_location(*p, "deploymentLocation", out);
}

// Runs decoders in order; the first error wins.
template <class... Fs>
decode_error first_error(Fs&&... fs) {
  decode_error err;
  ((err ? void() : void(err = fs())), ...);
  return err;
}

} // namespace

// -- requests ------------------------------------------------------------------

decode_error decode_location(const json::value& v, const std::string& at,
                             infra::deployment_location& out) {
  const json::object* o = nullptr;
  return first_error([&] { return need_object(v, at, o); },
                     [&] { return need_string(*o, at, "name", out.name); },
                     [&] { return opt_string(*o, at, "type", out.type); },
                     [&] {
                       return opt_object(*o, at, "properties", out.properties);
                     });
}

decode_error decode_create_request(const json::value& v,
                                   infra::create_request& out) {
  const json::object* o = nullptr;
  return first_error(
    [&] { return need_object(v, "", o); },
    [&] { return need_location(*o, out.location); },
    [&] { return need_string(*o, "", "template", out.template_text); },
    [&] { return need_string(*o, "", "templateType", out.template_type); },
    [&] {
      return opt_object(*o, "", "systemProperties", out.system_properties);
    },
    [&] { return opt_object(*o, "", "properties", out.properties); });
}

decode_error decode_delete_request(const json::value& v, delete_request& out) {
  const json::object* o = nullptr;
  return first_error(
    [&] { return need_object(v, "", o); },
    [&] { return need_string(*o, "", "infrastructureId", out.infrastructure_id); },
    [&] { return need_location(*o, out.location); });
}

decode_error decode_task_query(const json::value& v, task_query& out) {
  const json::object* o = nullptr;
  return first_error(
    [&] { return need_object(v, "", o); },
    [&] { return need_string(*o, "", "infrastructureId", out.infrastructure_id); },
    [&] { return need_string(*o, "", "requestId", out.request_id); },
    [&] { return need_location(*o, out.location); });
}

decode_error decode_find_request(const json::value& v, find_request& out) {
  const json::object* o = nullptr;
  return first_error(
    [&] { return need_object(v, "", o); },
    [&] { return need_location(*o, out.location); },
    [&] { return need_string(*o, "", "template", out.template_text); },
    [&] { return need_string(*o, "", "templateType", out.template_type); },
    [&] { return opt_string(*o, "", "instanceName", out.instance_name); });
}

json::object encode(const infra::deployment_location& x) {
  return {{"name", x.name}, {"type", x.type}, {"properties", x.properties}};
}

json::object encode(const infra::create_request& x) {
  return {{"template", x.template_text},
          {"templateType", x.template_type},
          {"systemProperties", x.system_properties},
          {"properties", x.properties},
          {"deploymentLocation", encode(x.location)}};
}

json::object encode(const delete_request& x) {
  return {{"infrastructureId", x.infrastructure_id},
          {"deploymentLocation", encode(x.location)}};
}

json::object encode(const task_query& x) {
  return {{"infrastructureId", x.infrastructure_id},
          {"requestId", x.request_id},
          {"deploymentLocation", encode(x.location)}};
}

json::object encode(const find_request& x) {
  return {{"instanceName", x.instance_name},
          {"template", x.template_text},
          {"templateType", x.template_type},
          {"deploymentLocation", encode(x.location)}};
}

// -- answers -------------------------------------------------------------------

json::object encode(const infra::accepted& x) {
  return {{"infrastructureId", x.infrastructure_id}, {"requestId", x.request_id}};
}

decode_error decode_accepted(const json::value& v, infra::accepted& out) {
  const json::object* o = nullptr;
  return first_error(
    [&] { return need_object(v, "", o); },
    [&] { return need_string(*o, "", "infrastructureId", out.infrastructure_id); },
    [&] { return need_string(*o, "", "requestId", out.request_id); });
}

json::object encode(const infra::task& x) {
  json::object out{{"infrastructureId", x.infrastructure_id},
                   {"requestId", x.request_id},
                   {"status", to_string(x.status)}};
  if (x.status == infra::task_status::failed) {
    auto f = x.failure.value_or(infra::failure_details{});
    out["failureDetails"] = json::object{{"failureCode", to_string(f.code)},
                                         {"description", f.description}};
  }
  out["outputs"] = x.outputs;
  return out;
}

decode_error decode_task(const json::value& v, infra::task& out) {
  const json::object* o = nullptr;
  std::string status;
  json::object details;
  bool has_details = false;
  auto err = first_error(
    [&] { return need_object(v, "", o); },
    [&] { return opt_string(*o, "", "infrastructureId", out.infrastructure_id); },
    [&] { return opt_string(*o, "", "requestId", out.request_id); },
    [&] { return need_string(*o, "", "status", status); },
    [&] { return opt_object(*o, "", "outputs", out.outputs); },
    [&] {
      auto e = opt_object(*o, "", "failureDetails", details);
      has_details = !e && o->if_contains("failureDetails") != nullptr
                    && !o->at("failureDetails").is_null();
      return e;
    });
  if (err)
    return err;
  auto s = infra::parse_task_status(status);
  if (!s)
    return std::string("field 'status' must be IN_PROGRESS, COMPLETE or FAILED");
  out.status = *s;
  if (!has_details)
    return {};
  infra::failure_details f;
  std::string code;
  if (auto e = first_error(
        [&] { return opt_string(details, "failureDetails", "failureCode", code); },
        [&] {
          return opt_string(details, "failureDetails", "description",
                            f.description);
        }))
    return e;
  if (!code.empty()) {
    auto c = infra::parse_failure_code(code);
    if (!c)
      return std::string("field 'failureDetails.failureCode' is not a known "
                         "failure code");
    f.code = *c;
  }
  out.failure = std::move(f);
  return {};
}

json::object encode(const std::optional<infra::found>& x) {
  if (!x)
    return {{"result", nullptr}};
  return {{"result", json::object{{"infrastructureId", x->infrastructure_id},
                                  {"outputs", x->outputs}}}};
}

decode_error decode_found(const json::value& v, std::optional<infra::found>& out) {
  const json::object* o = nullptr;
  if (auto e = need_object(v, "", o))
    return e;
  auto r = o->if_contains("result");
  // Ignition describes "not found" as an empty result: null, absent or {}.
  if (r == nullptr || r->is_null()
      || (r->is_object() && r->get_object().empty())) {
    out.reset();
    return {};
  }
  const json::object* ro = nullptr;
  infra::found f;
  auto err = first_error(
    [&] { return need_object(*r, "result", ro); },
    [&] {
      return need_string(*ro, "result", "infrastructureId", f.infrastructure_id);
    },
    [&] { return opt_object(*ro, "result", "outputs", f.outputs); });
  if (err)
    return err;
  out = std::move(f);
  return {};
}

json::object encode_error(const std::string& message, int status) {
  return {{"localizedMessage", message}, {"status", status}};
}

} // namespace stepwise::http
