// The value types of net/http_client.hpp: names and header lookup.
#include "net/http_client.hpp"

#include <algorithm>
#include <cctype>

namespace stepwise::net {

std::string_view to_string(http_method x) {
  switch (x) {
    case http_method::get:
      return "GET";
    case http_method::post:
      return "POST";
    case http_method::put:
      return "PUT";
    case http_method::del:
      return "DELETE";
  }
  return "?";
}

std::string_view to_string(http_error_kind x) {
  switch (x) {
    case http_error_kind::timeout:
      return "timeout";
    case http_error_kind::connect_failed:
      return "connect_failed";
    case http_error_kind::tls:
      return "tls";
    case http_error_kind::shutting_down:
      return "shutting_down";
    case http_error_kind::canceled:
      return "canceled";
    case http_error_kind::other:
      return "other";
  }
  return "?";
}

const std::string* http_response::header(std::string_view name) const {
  auto same = [name](const std::string& x) {
    return x.size() == name.size()
           && std::equal(x.begin(), x.end(), name.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a))
                       == std::tolower(static_cast<unsigned char>(b));
              });
  };
  for (auto& [key, value] : headers)
    if (same(key))
      return &value;
  return nullptr;
}

} // namespace stepwise::net
