#include "tools/client_common.hpp"

#include <cstdio>
#include <cstdlib>

namespace stepwise::tools {

std::string text_of(const boost::json::value& obj, const char* key) {
  auto o = obj.if_object();
  if (o == nullptr)
    return "-";
  auto v = o->if_contains(key);
  if (v == nullptr || v->is_null())
    return "-";
  if (v->is_string())
    return std::string(v->get_string());
  return boost::json::serialize(*v);
}

std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

int print_json_or_error(const api_result& r) {
  if (!r.ok())
    return fail(r);
  std::printf("%s\n", boost::json::serialize(r.body).c_str());
  return 0;
}

int fail(const api_result& r) {
  std::fprintf(stderr, "error: %s\n", r.error.c_str());
  return 1;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 2;
}

} // namespace stepwise::tools
