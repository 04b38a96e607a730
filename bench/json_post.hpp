#pragma once

#include <string>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace stepwise::bench {

/// A keep-alive `POST` of JSON `body` to `path` of `host`, with `token` as
/// its bearer (none when empty): what the epoll clients send.
inline boost::beast::http::request<boost::beast::http::string_body> json_post(
  const std::string& host, const std::string& token, const std::string& path, std::string body) {
  namespace http = boost::beast::http;
  http::request<http::string_body> req{http::verb::post, path, 11};
  req.set(http::field::host, host);
  req.set(http::field::content_type, "application/json");
  if (!token.empty())
    req.set(http::field::authorization, "Bearer " + token);
  req.keep_alive(true);
  req.body() = std::move(body);
  req.prepare_payload();
  return req;
}

} // namespace stepwise::bench
