#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/errors.hpp"
#include "http/limits.hpp"
#include "http/request_metrics.hpp"
#include "http/request_target.hpp"
#include "http/server_request.hpp"
#include "http/server_response.hpp"
#include "http/stream_source.hpp"

namespace stepwise::http {

/// One request as a route handler sees it: the request as the server read
/// it, the values of the pattern's `{name}` segments and the body, already
/// read and bounded by the server.
struct request {
  const server_request& raw;
  std::vector<std::string> params;
  std::string body;
  /// Set by `answer_later`.
  std::shared_ptr<stream_source> later;

  /// Makes `src` finish the answer after the handler returned, holding no
  /// thread (an event stream, a long poll); `res` carries its head.
  void answer_later(std::shared_ptr<stream_source> src) {
    later = std::move(src);
  }
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
  using handler = std::function<void(request&, server_response&)>;
  using error_writer = std::function<void(server_response&, const api_error&)>;

  /// A registered route.
  struct route {
    std::string method;
    std::string pattern;
    std::vector<std::string> segments;
    handler fn;
    /// Whether the body must be JSON (415 otherwise).
    bool json_body = false;
    /// Whether `fn` never blocks (it answers later what waits): the server
    /// runs it on the connection's I/O thread instead of a worker.
    bool never_blocks = false;
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
  using guard =
    std::function<std::optional<api_error>(const server_request&, const route&, server_response&)>;

  /// `metrics` (optional) counts every answer the router gives.
  explicit router(limits lim, request_metrics* metrics = nullptr);

  /// Adds a route. GET routes also answer HEAD. `never_blocks`: see
  /// `route::never_blocks`.
  void add(std::string method, std::string pattern, handler fn, bool never_blocks = false);

  /// Returns whether the route that serves `method` and `path` never
  /// blocks (false for no route: the errors are answered on a worker).
  bool never_blocks(std::string_view method, std::string_view path) const;

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

  /// Serves one request whose body, read within the limits, is `req.body`.
  /// Returns the source that finishes the answer when the route answers
  /// later (`request::answer_later`), else null. Never throws.
  std::shared_ptr<stream_source> serve(const server_request& req, server_response& res) const;

  /// Checks what must be checked before a body is read: header size (431),
  /// methods or bodies that no route takes, and, for a request that has a
  /// body, the route, its guards and the Content-Type, so that a refused
  /// body is never read. Returns whether it answered (the answer then
  /// closes the connection when a body is left unread).
  bool pre_route(const server_request& req, server_response& res) const;

  /// Answers a request that the server could not take (a malformed request
  /// 400, a target too long 414, headers beyond the parser's bound 431, a
  /// body too large 413): turns `res.status` into our error body. Returns
  /// false when `res` already has a body.
  bool answer_error(const server_request& req, server_response& res) const;

  /// Counts the answer `res` to `req` in the request metrics, timed from
  /// `req.started` when set. Called once per request, where the status is
  /// final and before it is sent, so that a client that saw the answer also
  /// sees it counted.
  void record(const server_request& req, const server_response& res) const;

  /// Writes `e` for a request to `path` with the error writer of its prefix.
  void write(std::string_view path, server_response& res, const api_error& e) const;

  const std::vector<route>& routes() const {
    return routes_;
  }

  const limits& bounds() const {
    return limits_;
  }

private:
  static bool matches(const route& r, const std::vector<std::string_view>& segs,
                      std::vector<std::string>* params);

  std::shared_ptr<stream_source> dispatch(const server_request& req, server_response& res) const;

  /// Finds the route of `req` and runs its guards and the Content-Type
  /// check; answers and returns false when one refuses.
  bool admit(const server_request& req, server_response& res, match& m) const;

  bool check_early(const server_request& req, server_response& res) const;

  void reject(const std::string& method, const std::string& path, const match& m,
              server_response& res) const;

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
bool has_body(const server_request& req);

} // namespace stepwise::http
