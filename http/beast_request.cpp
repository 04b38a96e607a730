#include "http/beast_request.hpp"

namespace stepwise::http {

namespace {

void set_endpoint(const boost::asio::ip::tcp::endpoint& ep, std::string& addr, int& port) {
  boost::system::error_code ec;
  addr = ep.address().to_string(ec);
  port = static_cast<int>(ep.port());
}

} // namespace

int to_server_request(const boost::beast::http::request_header<>& head,
                      const boost::asio::ip::tcp::endpoint& remote,
                      const boost::asio::ip::tcp::endpoint& local, server_request& out) {
  out.method = std::string(head.method_string());
  out.version = head.version() == 10 ? "HTTP/1.0" : "HTTP/1.1";
  out.target = std::string(head.target());
  for (auto& field : head) {
    auto value = field.value();
    if (!value.empty())
      out.headers.add(std::string(field.name_string()), std::string(value));
  }
  set_endpoint(remote, out.remote_addr, out.remote_port);
  set_endpoint(local, out.local_addr, out.local_port);
  return decode_target(out.target, out.path, out.params);
}

} // namespace stepwise::http
