#pragma once

#include <string>

#include "http/header_fields.hpp"

namespace stepwise::http {

/// The answer a route or the router gives, before the server adds what
/// frames it (`Content-Length`, `Connection`, ...: http/beast_response.hpp).
struct server_response {
  int status = 200;
  header_fields headers;
  std::string body;
  /// The connection closes after this answer: one that leaves part of a
  /// request body unread, or follows a request the server could not parse,
  /// since what comes next on the connection starts at an unknown place.
  bool close_connection = false;

  /// Sets the body and its `Content-Type`.
  void set_content(std::string text, std::string content_type) {
    body = std::move(text);
    headers.set("Content-Type", std::move(content_type));
  }
};

} // namespace stepwise::http
