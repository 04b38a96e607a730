#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "http/server_request.hpp"
#include "http/server_response.hpp"

namespace stepwise::http {

/// How an answer's head describes the connection after it.
struct connection_terms {
  /// The connection closes after this answer (`Connection: close`);
  /// otherwise `Keep-Alive: timeout=..., max=...` with these two.
  bool close = false;
  std::chrono::seconds keep_alive_timeout{5};
  size_t keep_alive_max = 100000;
};

/// Returns the status line and headers of `res` as the answer to `req`,
/// with the headers that frame it, which replace any the route set:
/// `Connection: close` or `Keep-Alive`, `Content-Type: text/plain` for a
/// body without a type, `Content-Length` (also for HEAD, which gets no
/// body), or `Transfer-Encoding: chunked` when `chunked` (a stream), and
/// `Accept-Ranges: bytes` for HEAD. `res` keeps them, as sent.
std::string render_head(const server_request& req, server_response& res,
                        const connection_terms& terms, bool chunked);

/// Appends `data` as one chunk of a chunked body (nothing when empty: an
/// empty chunk would end the body).
void append_chunk(std::string& out, std::string_view data);

/// The chunk that ends a chunked body.
inline constexpr std::string_view last_chunk = "0\r\n\r\n";

} // namespace stepwise::http
