#include "http/body.hpp"

#include <limits>

#include "engine/errc.hpp"
#include "engine/labels.hpp"

namespace stepwise::http {

namespace {

constexpr size_t max_key_length = 255;

const char* kind_name(boost::json::kind k) {
  switch (k) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_:
      return "a number";
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::object:
      return "an object";
  }
  return "unknown";
}

} // namespace

api_error wrong_type(std::string_view field, const char* expected, const boost::json::value& got) {
  return invalid_argument("field '" + std::string(field) + "' must be " + expected + ", not "
                          + kind_name(got.kind()));
}

std::optional<api_error> decode_version(const boost::json::object& obj, std::string_view field,
                                        std::optional<int32_t>& out) {
  auto v = obj.if_contains(field);
  if (v == nullptr || v->is_null())
    return std::nullopt;
  auto n = v->if_int64();
  if (n == nullptr && v->is_uint64())
    return invalid_argument("field '" + std::string(field) + "' is out of range");
  if (n == nullptr)
    return wrong_type(field, "an integer", *v);
  if (*n < 1 || *n > std::numeric_limits<int32_t>::max())
    return invalid_argument("field '" + std::string(field) + "' must be between 1 and "
                            + std::to_string(std::numeric_limits<int32_t>::max()));
  out = static_cast<int32_t>(*n);
  return std::nullopt;
}

std::optional<api_error> parse_json(std::string_view body, size_t max_depth,
                                    boost::json::value& out) {
  if (body.empty())
    return malformed_json("request body is empty; expected a JSON object");
  boost::json::parse_options opts;
  opts.max_depth = max_depth;
  boost::json::stream_parser p({}, opts);
  boost::json::error_code ec;
  auto used = p.write_some(body.data(), body.size(), ec);
  if (!ec && used < body.size())
    return malformed_json("malformed JSON: unexpected data at byte " + std::to_string(used));
  if (!ec)
    p.finish(ec);
  if (ec) {
    auto what = ec == boost::json::error::too_deep
                  ? "nested deeper than " + std::to_string(max_depth) + " levels"
                  : ec.message();
    return malformed_json("malformed JSON at byte " + std::to_string(used) + ": " + what);
  }
  out = p.release();
  return std::nullopt;
}

namespace {

// The optional `labels` object of a start request: string values only,
// checked as the engine checks them (engine/labels.hpp).
std::optional<api_error> decode_labels(const boost::json::object& obj,
                                       std::map<std::string, std::string>& out) {
  auto l = obj.if_contains("labels");
  if (l == nullptr || l->is_null())
    return std::nullopt;
  if (!l->is_object())
    return wrong_type("labels", "an object of strings", *l);
  for (auto& kv : l->get_object()) {
    std::string k{kv.key()};
    if (!kv.value().is_string())
      return wrong_type("labels." + k, "a string", kv.value());
    out[k] = std::string(kv.value().get_string());
  }
  if (auto err = check_labels(out))
    return invalid_argument(message_of(err));
  return std::nullopt;
}

} // namespace

std::optional<api_error> decode_start(const boost::json::value& body, start_request& out) {
  auto obj = body.if_object();
  if (obj == nullptr)
    return invalid_argument(std::string("request body must be a JSON object, not ")
                            + kind_name(body.kind()));
  for (auto& kv : *obj) {
    auto k = kv.key();
    if (k != "workflow" && k != "version" && k != "input" && k != "idempotency_key"
        && k != "deadline" && k != "labels")
      return invalid_argument("unknown field '" + std::string(k)
                              + "' (allowed: workflow, version, input, "
                                "idempotency_key, deadline, labels)");
  }
  auto wf = obj->if_contains("workflow");
  if (wf == nullptr)
    return invalid_argument("field 'workflow' is required");
  if (!wf->is_string())
    return wrong_type("workflow", "a string", *wf);
  if (wf->get_string().empty())
    return invalid_argument("field 'workflow' must not be empty");
  out.workflow = std::string(wf->get_string());
  if (auto err = decode_version(*obj, "version", out.version))
    return err;
  auto in = obj->if_contains("input");
  if (in == nullptr)
    return invalid_argument("field 'input' is required (use {} for none)");
  if (!in->is_object())
    return wrong_type("input", "an object", *in);
  out.input = in->get_object();
  if (auto k = obj->if_contains("idempotency_key"); k != nullptr && !k->is_null()) {
    if (!k->is_string())
      return wrong_type("idempotency_key", "a string", *k);
    auto& s = k->get_string();
    if (s.empty() || s.size() > max_key_length)
      return invalid_argument("field 'idempotency_key' must have 1 to "
                              + std::to_string(max_key_length) + " characters");
    out.idempotency_key = std::string(s);
  }
  if (auto err = decode_labels(*obj, out.labels))
    return err;
  if (auto d = obj->if_contains("deadline"); d != nullptr && !d->is_null()) {
    if (!d->is_string())
      return wrong_type("deadline", "an RFC 3339 time string", *d);
    auto t = parse_time(d->get_string());
    if (!t)
      return invalid_argument("field 'deadline' is not an RFC 3339 time: '"
                              + std::string(d->get_string()) + "'");
    out.deadline = *t;
  }
  return std::nullopt;
}

std::optional<api_error> check_empty_command(std::string_view body, size_t max_depth) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return std::nullopt;
  boost::json::value v;
  if (auto err = parse_json(body, max_depth, v))
    return err;
  auto obj = v.if_object();
  if (obj == nullptr)
    return invalid_argument(std::string("request body must be empty or {}, not ")
                            + kind_name(v.kind()));
  if (!obj->empty())
    return invalid_argument("unknown field '" + std::string(obj->begin()->key())
                            + "' (this request takes no fields)");
  return std::nullopt;
}

} // namespace stepwise::http
