#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>

#include "http/request_target.hpp"
#include "http/server_request.hpp"

namespace stepwise::http {

/// Fills `out` from a parsed request head: method, target, version, path
/// and query (`decode_target`), headers (those with an empty value left
/// out), remote and local address and port. Returns 0, or the status to
/// answer instead (`decode_target`'s 414 or 400); `out` then still has
/// what the target's path is not needed for.
int to_server_request(const boost::beast::http::request_header<>& head,
                      const boost::asio::ip::tcp::endpoint& remote,
                      const boost::asio::ip::tcp::endpoint& local, server_request& out);

} // namespace stepwise::http
