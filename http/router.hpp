#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <httplib.h>

#include "http/errors.hpp"
#include "http/limits.hpp"
#include "http/request_metrics.hpp"

namespace stepwise::http {

/// One request as a route handler sees it: the raw httplib request, the
/// values of the pattern's `{name}` segments and the body, already read and
/// bounded by the router.
struct request {
  const httplib::Request& raw;
  std::vector<std::string> params;
  std::string body;
};

/// Maps method and path to handlers, and answers everything that is not a
/// handler's business the same way for every route: 404 for unknown paths,
/// 405 with `Allow` for methods a path does not serve, 413 for bodies over
/// the limit, 415 for non-JSON bodies, 500 for an escaped exception.
///
/// Patterns are literal paths whose `{name}` segments match exactly one
/// non-empty segment. Routes are added at start-up; afterwards the router is
/// read-only and shared by all HTTP worker threads.
class router {
public:
  using handler = std::function<void(request&, httplib::Response&)>;
  using error_writer = std::function<void(httplib::Response&, const api_error&)>;

  /// A registered route.
  struct route {
    std::string method;
    std::string pattern;
    std::vector<std::string> segments;
    handler fn;
    /// Whether the body must be JSON (415 otherwise).
    bool json_body = false;
  };

  /// What `find` learned about a method and path.
  struct match {
    /// The matched route, or null.
    const route* hit = nullptr;
    std::vector<std::string> params;
    /// Non-empty when the path is known: the methods it serves, for `Allow`.
    std::string allow;
  };

  /// Decides whether a request may reach the route it matched: returns the
  /// error to answer (it may also set headers on the response), or none.
  using guard = std::function<std::optional<api_error>(const httplib::Request&, const route&,
                                                       httplib::Response&)>;

  /// `metrics` (optional) counts every answer the router gives.
  explicit router(limits lim, request_metrics* metrics = nullptr);

  /// Adds a route. GET routes also answer HEAD.
  void add(std::string method, std::string pattern, handler fn);

  /// Makes router-detected errors of paths under `prefix` use `w` instead of
  /// the stepwise error body (the Infrastructure API has its own format).
  void set_error_writer(std::string prefix, error_writer w);

  /// Adds a guard (authentication). Guards run in the order added, after a
  /// route matched and before its body is read.
  void add_guard(guard g);

  /// Returns the route for `method` and `path`.
  match find(std::string_view method, std::string_view path) const;

  /// Returns the pattern of the route that serves `path` with any method, or
  /// `"unmatched"`: a label of bounded cardinality for metrics.
  std::string_view label(std::string_view path) const;

  /// Serves one request; `reader` is set when httplib left the body for us
  /// to read. Never throws.
  void serve(const httplib::Request& req, httplib::Response& res,
             const httplib::ContentReader* reader) const;

  /// Checks what must be checked before httplib reads a body: header size
  /// (431) and methods or bodies that no route takes. Returns whether it
  /// answered.
  bool pre_route(const httplib::Request& req, httplib::Response& res) const;

  /// Answers a request that httplib rejected or a pre-routing check stopped:
  /// turns the status into our error body (405 for unknown methods).
  /// Returns false when `res` already has a body.
  bool answer_error(const httplib::Request& req, httplib::Response& res) const;

  /// Counts the answer `res` to `req` in the request metrics. Called where
  /// the status is final and before it is sent, so that a client that saw
  /// the answer also sees it counted.
  void record(const httplib::Request& req, const httplib::Response& res) const;

  /// Writes `e` for a request to `path` with the error writer of its prefix.
  void write(std::string_view path, httplib::Response& res, const api_error& e) const;

  const std::vector<route>& routes() const {
    return routes_;
  }

  const limits& bounds() const {
    return limits_;
  }

private:
  static bool matches(const route& r, const std::vector<std::string_view>& segs,
                      std::vector<std::string>* params);

  void dispatch(const httplib::Request& req, httplib::Response& res,
                const httplib::ContentReader* reader) const;

  bool check_early(const httplib::Request& req, httplib::Response& res) const;

  void reject(const std::string& method, const std::string& path, const match& m,
              httplib::Response& res) const;

  bool read_body(const httplib::Request& req, httplib::Response& res,
                 const httplib::ContentReader* reader, std::string& out) const;

  limits limits_;
  request_metrics* metrics_;
  std::vector<route> routes_;
  std::vector<std::pair<std::string, error_writer>> writers_;
  std::vector<guard> guards_;
};

/// Returns whether `content_type` names JSON (`application/json`,
/// `application/*+json`, any parameters).
bool is_json_type(std::string_view content_type);

/// Returns whether `req` announces a body (a non-zero Content-Length or a
/// Transfer-Encoding).
bool has_body(const httplib::Request& req);

/// Makes httplib close the connection after sending `res` (whose body is
/// already set): for answers that leave part of a request body unread.
void force_close(httplib::Response& res);

/// Returns `target` without its query, percent-decoded.
std::string path_of_target(std::string_view target);

} // namespace stepwise::http
