#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <caf/error.hpp>

namespace stepwise::http {
struct server_response;
} // namespace stepwise::http

namespace stepwise::http {

/// An error answer of the API: the HTTP status plus the `code` and
/// `message` of the body `{"error":{"code":"...","message":"..."}}`.
/// Codes are stable strings that clients may switch on; messages are for
/// humans and name what was wrong.
struct api_error {
  int status = 500;
  std::string code;
  std::string message;
  /// Fields beside `code` and `message` in the error object, for clients
  /// that act on them rather than parse the message (`horizon` of `gone`).
  boost::json::object details = {};
};

// -- constructors for the errors the gateway itself detects -------------------

/// Returns a 400 for a body that is not well-formed JSON (or too deep).
api_error malformed_json(std::string message);

/// Returns a 400 for a missing, wrong-typed, unknown or out-of-range field or
/// query parameter.
api_error invalid_argument(std::string message);

/// Returns a 404 for an unknown path or resource.
api_error not_found(std::string message);

/// Returns a 500 for a failure that should not happen (a bug).
api_error internal_error(std::string message);

/// 503 `shutting_down`: the server stops and takes no new request.
api_error shutting_down();

/// 410 `gone`: the events a reader asked for (those after a seq below
/// `horizon`) may have been removed by retention. Names where to read
/// again, and carries `horizon` as a field.
api_error events_gone(int64_t horizon);

// -- mapping engine errors ----------------------------------------------------

/// Maps an engine error to its HTTP status and code. This is the one table
/// that says which `errc` becomes which status (status_map.cpp).
api_error from_engine(const caf::error& err);

/// Returns the standard reason phrase's snake_case code for a status that
/// the server answers on its own (400, 413, 414, ...).
std::string code_for_status(int status);

// -- writing ------------------------------------------------------------------

/// Returns `text` with every byte that does not begin a valid UTF-8
/// sequence replaced by U+FFFD: messages quote what clients sent, and a
/// JSON body must be valid UTF-8 for clients to parse it.
std::string valid_utf8(std::string_view text);

/// Returns the JSON body of `e`.
std::string error_body(const api_error& e);

/// Sets `res` to the error answer `e` (status, JSON body, and `Retry-After`
/// for 503s so that clients back off).
void write_error(server_response& res, const api_error& e);

} // namespace stepwise::http
