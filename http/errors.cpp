#include "http/errors.hpp"

#include <boost/json.hpp>
#include <httplib.h>

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
  boost::json::object inner;
  inner["code"] = e.code;
  inner["message"] = e.message;
  boost::json::object outer;
  outer["error"] = std::move(inner);
  return boost::json::serialize(outer);
}

void write_error(httplib::Response& res, const api_error& e) {
  res.status = e.status;
  if (e.status == 503)
    res.set_header("Retry-After", "1");
  res.set_content(error_body(e), "application/json");
}

} // namespace stepwise::http
