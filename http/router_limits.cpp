// The router's limits: what is checked before httplib reads a body, and
// how a body is read within its bound.

#include "http/router.hpp"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace stepwise::http {

namespace detail {

extern thread_local std::optional<std::chrono::steady_clock::time_point> request_started;

} // namespace detail

namespace {

api_error body_too_large(size_t max_body_bytes) {
  return {413, "payload_too_large",
          "request body exceeds " + std::to_string(max_body_bytes) + " bytes"};
}

} // namespace

bool has_body(const httplib::Request& req) {
  if (req.has_header("Transfer-Encoding"))
    return true;
  if (!req.has_header("Content-Length"))
    return false;
  auto v = req.get_header_value("Content-Length");
  return v.find_first_not_of("0") != std::string::npos;
}

void force_close(httplib::Response& res) {
  // httplib 0.11 keeps a connection open whatever the answer says. A chunked
  // provider that reports failure after writing the whole answer makes it
  // close the socket once the client has a complete response, so that the
  // unread rest of a body is never parsed as the next request.
  auto body = std::make_shared<std::string>(std::move(res.body));
  res.body.clear();
  auto type = res.get_header_value("Content-Type");
  res.headers.erase("Content-Type");
  res.set_header("Connection", "close");
  res.set_chunked_content_provider(type.empty() ? "application/json" : type,
                                   [body](size_t, httplib::DataSink& sink) {
                                     sink.write(body->data(), body->size());
                                     sink.done();
                                     return false;
                                   });
}

bool router::read_body(const httplib::Request& req, httplib::Response& res,
                       const httplib::ContentReader* reader, std::string& out) const {
  if (reader == nullptr) {
    out = req.body;
    return true;
  }
  // Without Content-Length or Transfer-Encoding a request has no body;
  // httplib would instead read until the client closes.
  if (!has_body(req))
    return true;
  bool too_big = false;
  size_t seen = 0;
  auto ok = (*reader)([&](const char* data, size_t n) {
    seen += n;
    if (seen > limits_.max_body_bytes) {
      // Keep reading to drop the rest, so that the client, still sending,
      // is not reset before it reads the 413.
      too_big = true;
      out.clear();
      return seen <= limits_.max_drain_bytes;
    }
    out.append(data, n);
    return true;
  });
  if (ok && !too_big)
    return true;
  // httplib may have judged the length itself (a Content-Length over the
  // limit, status 413, the body skipped).
  if (too_big || res.status == 413)
    write(req.path, res, body_too_large(limits_.max_body_bytes));
  else
    write(req.path, res, {400, "bad_request", "request body could not be read"});
  if (!ok)
    force_close(res);
  return false;
}

bool router::pre_route(const httplib::Request& req, httplib::Response& res) const {
  detail::request_started = std::chrono::steady_clock::now();
  if (!check_early(req, res))
    return false;
  record(req, res);
  return true;
}

bool router::check_early(const httplib::Request& req, httplib::Response& res) const {
  // The rest of the request is never read: the connection closes after the
  // answer.
  auto refuse = [&](const api_error& e) {
    write(req.path, res, e);
    force_close(res);
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
    // httplib would read and drop a declared length of any size: refuse a
    // body too long to be worth draining before reading any of it.
    auto len = req.get_header_value("Content-Length");
    if (len.size() > 12
        || (!len.empty() && std::strtoull(len.c_str(), nullptr, 10) > limits_.max_drain_bytes))
      return refuse(body_too_large(limits_.max_body_bytes));
    return false;
  }
  bool no_handler = req.method != "GET" && req.method != "HEAD" && req.method != "OPTIONS";
  // httplib would read these bodies without any bound (or not at all):
  // answer before it tries.
  if (no_handler || has_body(req)) {
    auto m = find(req.method, req.path);
    if (m.hit != nullptr)
      write(req.path, res, invalid_argument(req.method + " requests take no body"));
    else
      reject(req.method, req.path, m, res);
    if (has_body(req))
      force_close(res);
    return true;
  }
  return false;
}

} // namespace stepwise::http
