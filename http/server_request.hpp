#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "http/header_fields.hpp"
#include "http/query_params.hpp"

namespace stepwise::http {

/// A request as the server read it, what the router and every route take.
struct server_request {
  /// As sent (`GET`, `POST`, any other token).
  std::string method;
  /// The request target as sent: path and query, still percent-encoded.
  std::string target;
  /// The target's path, percent-decoded (`%2F` is a `/` here, `+` stays a
  /// `+`). Empty when the target could not be decoded.
  std::string path;
  /// The target's query, decoded (`+` is a space).
  query_params params;
  /// Fields with an empty value are left out: `Content-Type:` reads as
  /// absent, not as an empty type.
  header_fields headers;
  /// `HTTP/1.0` or `HTTP/1.1`.
  std::string version;
  /// Read whole, within the server's bounds, before the route runs.
  std::string body;
  std::string remote_addr;
  int remote_port = 0;
  std::string local_addr;
  int local_port = 0;
  /// When its head was read: the request metrics time the answer from
  /// here. None for a request that did not come from a connection (tests
  /// that call the router).
  std::optional<std::chrono::steady_clock::time_point> started;
};

} // namespace stepwise::http
