#include "http/json_fields.hpp"

#include "engine/duration_text.hpp"
#include "http/body.hpp"

namespace stepwise::http {

namespace json = boost::json;

// Values are quoted so that a typo can be seen; long ones are cut, since
// the message is for reading.
std::string value_quoted(std::string_view s) {
  constexpr size_t most = 64;
  return "'" + std::string(s.substr(0, most)) + (s.size() > most ? "...'" : "'");
}

std::optional<api_error> text_field(const json::object& obj, std::string_view field,
                                    std::optional<std::string>& out) {
  auto v = obj.if_contains(field);
  if (v == nullptr || v->is_null())
    return std::nullopt;
  if (!v->is_string())
    return wrong_type(field, "a string", *v);
  if (v->get_string().empty())
    return invalid_argument("field '" + std::string(field) + "' must not be empty");
  out = std::string(v->get_string());
  return std::nullopt;
}

std::optional<api_error> required_text_field(const json::object& obj, std::string_view field,
                                             std::string& out) {
  std::optional<std::string> s;
  if (auto err = text_field(obj, field, s))
    return err;
  if (!s)
    return invalid_argument("field '" + std::string(field) + "' is required");
  out = std::move(*s);
  return std::nullopt;
}

std::optional<api_error> duration_field(const json::object& obj, std::string_view field,
                                        std::optional<duration>& out) {
  std::optional<std::string> s;
  if (auto err = text_field(obj, field, s); err || !s)
    return err;
  auto d = parse_duration_text(*s);
  if (!d)
    return invalid_argument("field '" + std::string(field)
                            + "' must be a duration such as 30s, 5m, 2h or 1h30m, not "
                            + value_quoted(*s));
  out = *d;
  return std::nullopt;
}

} // namespace stepwise::http
