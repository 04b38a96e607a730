#include "http/errors.hpp"

#include <httplib.h>

#include "engine/json_text.hpp"

namespace stepwise::http {

api_error malformed_json(std::string message) {
  return {400, "malformed_json", std::move(message)};
}

api_error invalid_argument(std::string message) {
  return {400, "invalid_argument", std::move(message)};
}

api_error not_found(std::string message) {
  return {404, "not_found", std::move(message)};
}

api_error internal_error(std::string message) {
  return {500, "internal_error", std::move(message)};
}

std::string error_body(const api_error& e) {
  // Messages may quote what a client sent, invalid UTF-8 included:
  // json_text writes valid UTF-8 whatever the bytes (Boost.JSON would copy
  // them, and the body would be no JSON).
  std::string out = R"({"error":{"code":)";
  json_text::append_string(out, e.code);
  out += R"(,"message":)";
  json_text::append_string(out, e.message);
  out += "}}";
  return out;
}

void write_error(httplib::Response& res, const api_error& e) {
  res.status = e.status;
  if (e.status == 503)
    res.set_header("Retry-After", "1");
  res.set_content(error_body(e), "application/json");
}

} // namespace stepwise::http
