#include "http/repair_body.hpp"

#include "http/body.hpp"
#include "http/json_fields.hpp"

namespace stepwise::http {

namespace {

/// Parses `body` as an object whose members are all among `allowed`.
std::optional<api_error> repair_object(std::string_view body, size_t max_depth,
                                       std::initializer_list<std::string_view> allowed,
                                       const char* allowed_text, boost::json::object& out) {
  boost::json::value v;
  if (auto err = parse_json(body, max_depth, v))
    return err;
  auto* obj = v.if_object();
  if (obj == nullptr)
    return invalid_argument("request body must be a JSON object");
  for (auto& kv : *obj) {
    bool known = false;
    for (auto a : allowed)
      known = known || kv.key() == a;
    if (!known)
      return invalid_argument("unknown field '" + std::string(kv.key())
                              + "' (allowed: " + allowed_text + ")");
  }
  out = std::move(*obj);
  return std::nullopt;
}

} // namespace

std::optional<api_error> decode_retry(std::string_view body, size_t max_depth,
                                      command_request& out) {
  out.kind = command::retry;
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return std::nullopt;
  boost::json::object obj;
  if (auto err = repair_object(body, max_depth, {"input", "from_step"}, "input, from_step", obj))
    return err;
  if (auto* input = obj.if_contains("input"); input && !input->is_null()) {
    if (!input->is_object())
      return wrong_type("input", "an object (a JSON merge patch)", *input);
    out.input_patch = std::move(input->as_object());
  }
  std::optional<std::string> from;
  if (auto err = text_field(obj, "from_step", from))
    return err;
  out.from_step = from.value_or("");
  return std::nullopt;
}

std::optional<api_error> decode_skip(std::string_view body, size_t max_depth,
                                     command_request& out) {
  out.kind = command::skip;
  boost::json::object obj;
  if (auto err = repair_object(body, max_depth, {"step", "reason"}, "step, reason", obj))
    return err;
  if (auto err = required_text_field(obj, "step", out.step))
    return err;
  if (auto err = required_text_field(obj, "reason", out.reason))
    return err;
  if (out.reason.size() > max_skip_reason)
    return invalid_argument("field 'reason' must be at most " + std::to_string(max_skip_reason)
                            + " bytes, not " + std::to_string(out.reason.size()));
  return std::nullopt;
}

} // namespace stepwise::http
