#include "http/beast_request.hpp"

#include <string_view>
#include <vector>

namespace stepwise::http {

namespace {

// httplib's `detail::split` on '?': pieces trimmed of spaces and tabs,
// empty ones skipped.
std::vector<std::string_view> target_pieces(std::string_view target) {
  std::vector<std::string_view> out;
  auto add = [&](std::string_view piece) {
    while (!piece.empty() && (piece.front() == ' ' || piece.front() == '\t'))
      piece.remove_prefix(1);
    while (!piece.empty() && (piece.back() == ' ' || piece.back() == '\t'))
      piece.remove_suffix(1);
    if (!piece.empty())
      out.push_back(piece);
  };
  size_t begin = 0;
  for (size_t i = 0; i < target.size(); ++i)
    if (target[i] == '?') {
      add(target.substr(begin, i - begin));
      begin = i + 1;
    }
  add(target.substr(begin));
  return out;
}

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
  if (out.target.size() > max_target_bytes)
    return 414;
  auto target = std::string_view(out.target);
  target = target.substr(0, target.find('#'));
  auto pieces = target_pieces(target);
  if (pieces.size() > 2)
    return 400;
  if (!pieces.empty())
    out.path = httplib::detail::decode_url(std::string(pieces[0]), false);
  if (pieces.size() == 2)
    httplib::detail::parse_query_text(std::string(pieces[1]), out.params);
  return 0;
}

} // namespace stepwise::http
