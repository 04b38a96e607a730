// The router's limits: what is checked before a body is read.

#include "http/router.hpp"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace stepwise::http {

namespace {

api_error body_too_large(size_t max_body_bytes) {
  return {413, "payload_too_large",
          "request body exceeds " + std::to_string(max_body_bytes) + " bytes"};
}

} // namespace

bool has_body(const server_request& req) {
  if (req.headers.has("Transfer-Encoding"))
    return true;
  if (!req.headers.has("Content-Length"))
    return false;
  auto v = req.headers.get("Content-Length");
  return v.find_first_not_of("0") != std::string::npos;
}

bool router::pre_route(const server_request& req, server_response& res) const {
  if (!check_early(req, res))
    return false;
  record(req, res);
  return true;
}

bool router::check_early(const server_request& req, server_response& res) const {
  // The rest of the request is never read: the connection closes after the
  // answer.
  auto refuse = [&](const api_error& e) {
    write(req.path, res, e);
    res.close_connection = true;
    return true;
  };
  size_t header_bytes = 0;
  for (auto& kv : req.headers)
    header_bytes += kv.first.size() + kv.second.size();
  if (header_bytes > limits_.max_header_bytes)
    return refuse(
      {431, "header_too_large",
       "request headers exceed " + std::to_string(limits_.max_header_bytes) + " bytes"});
  bool body_methods =
    req.method == "POST" || req.method == "PUT" || req.method == "PATCH" || req.method == "DELETE";
  if (body_methods) {
    // Refuse a body too long to be worth draining before reading any of it.
    auto len = req.headers.get("Content-Length");
    if (len.size() > 12
        || (!len.empty() && std::strtoull(len.c_str(), nullptr, 10) > limits_.max_drain_bytes))
      return refuse(body_too_large(limits_.max_body_bytes));
    // A body that its route, a guard or its type refuses is never read.
    match m;
    if (has_body(req) && !admit(req, res, m)) {
      res.close_connection = true;
      return true;
    }
    return false;
  }
  bool no_handler = req.method != "GET" && req.method != "HEAD" && req.method != "OPTIONS";
  // No route reads these bodies: answer before reading them.
  if (no_handler || has_body(req)) {
    auto m = find(req.method, req.path);
    if (m.hit != nullptr)
      write(req.path, res, invalid_argument(req.method + " requests take no body"));
    else
      reject(req.method, req.path, m, res);
    if (has_body(req))
      res.close_connection = true;
    return true;
  }
  return false;
}

} // namespace stepwise::http
