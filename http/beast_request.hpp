#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>
#include <httplib.h>

namespace stepwise::http {

/// Longest request target taken (414 above), as httplib's server had it:
/// a target is a path and a query, not a place for data.
inline constexpr size_t max_target_bytes = 8192;

/// Fills `out` from a parsed request head the way httplib's server did, so
/// that the router and routes see the same `httplib::Request`: method,
/// target, version, path (percent-decoded, without the fragment), params
/// (the query as `httplib::detail::parse_query_text` reads it), headers
/// (those with an empty value left out), remote and local address and port
/// (also as the `REMOTE_ADDR`, `REMOTE_PORT`, `LOCAL_ADDR` and `LOCAL_PORT`
/// headers). Returns 0, or the status to answer instead: 414 for a target
/// over `max_target_bytes`, 400 for one that httplib would not parse (more
/// than one `?`).
int to_httplib_request(const boost::beast::http::request_header<>& head,
                       const boost::asio::ip::tcp::endpoint& remote,
                       const boost::asio::ip::tcp::endpoint& local, httplib::Request& out);

} // namespace stepwise::http
