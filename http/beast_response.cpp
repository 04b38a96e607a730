#include "http/beast_response.hpp"

#include <cstdio>

#include <boost/beast/http/status.hpp>

namespace stepwise::http {

std::string render_head(const server_request& req, server_response& res,
                        const connection_terms& terms, bool chunked) {
  res.headers.erase("Connection");
  res.headers.erase("Keep-Alive");
  res.headers.erase("Content-Length");
  res.headers.erase("Transfer-Encoding");
  if (terms.close)
    res.headers.set("Connection", "close");
  else
    res.headers.set("Keep-Alive", "timeout=" + std::to_string(terms.keep_alive_timeout.count())
                                    + ", max=" + std::to_string(terms.keep_alive_max));
  if (!res.headers.has("Content-Type") && (chunked || !res.body.empty()))
    res.headers.set("Content-Type", "text/plain");
  if (chunked)
    res.headers.set("Transfer-Encoding", "chunked");
  else
    res.headers.set("Content-Length", std::to_string(res.body.size()));
  if (req.method == "HEAD" && !res.headers.has("Accept-Ranges"))
    res.headers.set("Accept-Ranges", "bytes");
  namespace bh = boost::beast::http;
  auto reason = bh::obsolete_reason(bh::int_to_status(static_cast<unsigned>(res.status)));
  std::string out;
  out.reserve(256);
  out += "HTTP/1.1 ";
  out += std::to_string(res.status);
  out += ' ';
  out.append(reason.data(), reason.size());
  out += "\r\n";
  for (auto& [name, value] : res.headers) {
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  out += "\r\n";
  return out;
}

void append_chunk(std::string& out, std::string_view data) {
  if (data.empty())
    return;
  char size[20];
  auto n = std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
  out.append(size, static_cast<size_t>(n));
  out.append(data.data(), data.size());
  out += "\r\n";
}

} // namespace stepwise::http
