#include "http/beast_request.hpp"

namespace stepwise::http {

namespace {

void set_endpoint(httplib::Request& out, const boost::asio::ip::tcp::endpoint& ep, bool remote) {
  boost::system::error_code ec;
  auto addr = ep.address().to_string(ec);
  auto port = static_cast<int>(ep.port());
  if (remote) {
    out.remote_addr = addr;
    out.remote_port = port;
    out.set_header("REMOTE_ADDR", addr);
    out.set_header("REMOTE_PORT", std::to_string(port));
  } else {
    out.local_addr = addr;
    out.local_port = port;
    out.set_header("LOCAL_ADDR", addr);
    out.set_header("LOCAL_PORT", std::to_string(port));
  }
}

} // namespace

int to_httplib_request(const boost::beast::http::request_header<>& head,
                       const boost::asio::ip::tcp::endpoint& remote,
                       const boost::asio::ip::tcp::endpoint& local, httplib::Request& out) {
  out.method = std::string(head.method_string());
  out.version = head.version() == 10 ? "HTTP/1.0" : "HTTP/1.1";
  out.target = std::string(head.target());
  for (auto& field : head) {
    auto value = field.value();
    // httplib drops a header without a value: `Content-Type:` reads as
    // absent, not as an empty type.
    if (!value.empty())
      out.headers.emplace(std::string(field.name_string()), std::string(value));
  }
  set_endpoint(out, remote, true);
  set_endpoint(out, local, false);
  query_params params;
  if (auto status = decode_target(out.target, out.path, params))
    return status;
  for (auto& [key, value] : params)
    out.params.emplace(key, value);
  return 0;
}

} // namespace stepwise::http
