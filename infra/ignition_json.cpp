#include "infra/ignition_json.hpp"

namespace stepwise::infra {

namespace json = boost::json;

namespace {

std::string join(const std::string& at, const char* name) {
  return at.empty() ? std::string(name) : at + "." + name;
}

// The JSON types a field is read as: how messages name them, how to test and
// take one. One reader serves them all, so every message has the same form.
template <class T>
struct json_type;

template <>
struct json_type<std::string> {
  static constexpr const char* name = "a string";
  static bool holds(const json::value& v) {
    return v.is_string();
  }
  static std::string take(const json::value& v) {
    return std::string(v.get_string());
  }
};

template <>
struct json_type<json::object> {
  static constexpr const char* name = "an object";
  static bool holds(const json::value& v) {
    return v.is_object();
  }
  static const json::object& take(const json::value& v) {
    return v.get_object();
  }
};

// A view, for objects only read further: no copy, and an optional one left
// absent stays null.
template <>
struct json_type<const json::object*> {
  static constexpr const char* name = "an object";
  static bool holds(const json::value& v) {
    return v.is_object();
  }
  static const json::object* take(const json::value& v) {
    return &v.get_object();
  }
};

// `path` names the value in the message.
template <class T>
decode_error read_value(const json::value& v, const std::string& path, T& out) {
  if (!json_type<T>::holds(v))
    return "field '" + path + "' must be " + json_type<T>::name;
  out = json_type<T>::take(v);
  return {};
}

// A location is a field like the others, with its own messages inside.
decode_error read_value(const json::value& v, const std::string& path, deployment_location& out) {
  return decode_location(v, path, out);
}

// A required field that is null has the wrong type, not a missing value: the
// message says what it must be. An optional one may be absent or null, and
// `out` is then left as it is.
template <class T>
decode_error read_field(const json::object& o, const std::string& at, const char* name,
                        bool required, T& out) {
  auto p = o.if_contains(name);
  if (p == nullptr)
    return required ? decode_error("missing required field '" + join(at, name) + "'")
                    : decode_error{};
  if (!required && p->is_null())
    return {};
  return read_value(*p, join(at, name), out);
}

template <class T>
decode_error need(const json::object& o, const std::string& at, const char* name, T& out) {
  return read_field(o, at, name, true, out);
}

template <class T>
decode_error opt(const json::object& o, const std::string& at, const char* name, T& out) {
  return read_field(o, at, name, false, out);
}

// The body itself (`at` empty) gets a message of its own.
decode_error need_object(const json::value& v, const std::string& at, const json::object*& out) {
  if (at.empty() && !v.is_object())
    return std::string("the body must be a JSON object");
  return read_value(v, at, out);
}

// Runs decoders in order; the first error wins.
template <class... Fs>
decode_error first_error(Fs&&... fs) {
  decode_error err;
  ((err ? void() : void(err = fs())), ...);
  return err;
}

// Create and find name a template and where it applies alike.
template <class Request>
decode_error need_template(const json::object& o, Request& out) {
  return first_error([&] { return need(o, "", "deploymentLocation", out.location); },
                     [&] { return need(o, "", "template", out.template_text); },
                     [&] { return need(o, "", "templateType", out.template_type); });
}

} // namespace

// -- requests ------------------------------------------------------------------

decode_error decode_location(const json::value& v, const std::string& at,
                             deployment_location& out) {
  const json::object* o = nullptr;
  return first_error([&] { return need_object(v, at, o); },
                     [&] { return need(*o, at, "name", out.name); },
                     [&] { return opt(*o, at, "type", out.type); },
                     [&] { return opt(*o, at, "properties", out.properties); });
}

decode_error decode_create_request(const json::value& v, create_request& out) {
  const json::object* o = nullptr;
  return first_error([&] { return need_object(v, "", o); }, [&] { return need_template(*o, out); },
                     [&] { return opt(*o, "", "systemProperties", out.system_properties); },
                     [&] { return opt(*o, "", "properties", out.properties); });
}

decode_error decode_delete_request(const json::value& v, delete_request& out) {
  const json::object* o = nullptr;
  return first_error([&] { return need_object(v, "", o); },
                     [&] { return need(*o, "", "infrastructureId", out.infrastructure_id); },
                     [&] { return need(*o, "", "deploymentLocation", out.location); });
}

decode_error decode_task_query(const json::value& v, task_query& out) {
  const json::object* o = nullptr;
  return first_error([&] { return need_object(v, "", o); },
                     [&] { return need(*o, "", "infrastructureId", out.infrastructure_id); },
                     [&] { return need(*o, "", "requestId", out.request_id); },
                     [&] { return need(*o, "", "deploymentLocation", out.location); });
}

decode_error decode_find_request(const json::value& v, find_request& out) {
  const json::object* o = nullptr;
  return first_error([&] { return need_object(v, "", o); }, [&] { return need_template(*o, out); },
                     [&] { return opt(*o, "", "instanceName", out.instance_name); });
}

json::object encode(const deployment_location& x) {
  return {{"name", x.name}, {"type", x.type}, {"properties", x.properties}};
}

json::object encode(const create_request& x) {
  return {{"template", x.template_text},
          {"templateType", x.template_type},
          {"systemProperties", x.system_properties},
          {"properties", x.properties},
          {"deploymentLocation", encode(x.location)}};
}

json::object encode(const delete_request& x) {
  return {{"infrastructureId", x.infrastructure_id}, {"deploymentLocation", encode(x.location)}};
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

json::object encode(const accepted& x) {
  return {{"infrastructureId", x.infrastructure_id}, {"requestId", x.request_id}};
}

decode_error decode_accepted(const json::value& v, accepted& out) {
  const json::object* o = nullptr;
  return first_error([&] { return need_object(v, "", o); },
                     [&] { return need(*o, "", "infrastructureId", out.infrastructure_id); },
                     [&] { return need(*o, "", "requestId", out.request_id); });
}

json::object encode(const task& x) {
  json::object out{{"infrastructureId", x.infrastructure_id},
                   {"requestId", x.request_id},
                   {"status", to_string(x.status)}};
  if (x.status == task_status::failed) {
    auto f = x.failure.value_or(failure_details{});
    out["failureDetails"] =
      json::object{{"failureCode", to_string(f.code)}, {"description", f.description}};
  }
  out["outputs"] = x.outputs;
  return out;
}

decode_error decode_task(const json::value& v, task& out) {
  const json::object* o = nullptr;
  std::string status;
  const json::object* details = nullptr;
  auto err = first_error([&] { return need_object(v, "", o); },
                         [&] { return opt(*o, "", "infrastructureId", out.infrastructure_id); },
                         [&] { return opt(*o, "", "requestId", out.request_id); },
                         [&] { return need(*o, "", "status", status); },
                         [&] { return opt(*o, "", "outputs", out.outputs); },
                         [&] { return opt(*o, "", "failureDetails", details); });
  if (err)
    return err;
  auto s = parse_task_status(status);
  if (!s)
    return std::string("field 'status' must be IN_PROGRESS, COMPLETE or FAILED");
  out.status = *s;
  if (details == nullptr)
    return {};
  failure_details f;
  std::string code;
  if (auto e =
        first_error([&] { return opt(*details, "failureDetails", "failureCode", code); },
                    [&] { return opt(*details, "failureDetails", "description", f.description); }))
    return e;
  if (!code.empty()) {
    auto c = parse_failure_code(code);
    if (!c)
      return std::string("field 'failureDetails.failureCode' is not a known "
                         "failure code");
    f.code = *c;
  }
  out.failure = std::move(f);
  return {};
}

json::object encode(const std::optional<found>& x) {
  if (!x)
    return {{"result", nullptr}};
  return {
    {"result", json::object{{"infrastructureId", x->infrastructure_id}, {"outputs", x->outputs}}}};
}

decode_error decode_found(const json::value& v, std::optional<found>& out) {
  const json::object* o = nullptr;
  if (auto e = need_object(v, "", o))
    return e;
  auto r = o->if_contains("result");
  // Ignition describes "not found" as an empty result: null, absent or {}.
  if (r == nullptr || r->is_null() || (r->is_object() && r->get_object().empty())) {
    out.reset();
    return {};
  }
  const json::object* ro = nullptr;
  found f;
  auto err =
    first_error([&] { return need_object(*r, "result", ro); },
                [&] { return need(*ro, "result", "infrastructureId", f.infrastructure_id); },
                [&] { return opt(*ro, "result", "outputs", f.outputs); });
  if (err)
    return err;
  out = std::move(f);
  return {};
}

json::object encode_error(const std::string& message, int status) {
  return {{"localizedMessage", message}, {"status", status}};
}

} // namespace stepwise::infra
