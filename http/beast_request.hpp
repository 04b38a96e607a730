#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>
#include <httplib.h>

#include "http/request_target.hpp"

namespace stepwise::http {

/// Fills `out` from a parsed request head: method, target, version, path
/// and params (`decode_target`), headers (those with an empty value left
/// out), remote and local address and port (also as the `REMOTE_ADDR`,
/// `REMOTE_PORT`, `LOCAL_ADDR` and `LOCAL_PORT` headers). Returns 0, or the
/// status to answer instead (`decode_target`'s 414 or 400).
int to_httplib_request(const boost::beast::http::request_header<>& head,
                       const boost::asio::ip::tcp::endpoint& remote,
                       const boost::asio::ip::tcp::endpoint& local, httplib::Request& out);

} // namespace stepwise::http
