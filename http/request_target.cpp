#include "http/request_target.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "http/digest.hpp"

namespace stepwise::http {

int decode_target(std::string_view target, std::string& path, query_params& params) {
  if (target.size() > max_target_bytes)
    return 414;
  target = target.substr(0, target.find('#'));
  auto url = boost::urls::parse_origin_form(target);
  if (!url)
    return 400;
  path = url->encoded_path().decode();
  for (auto param : url->params()) {
    if (param.key.empty() && !param.has_value)
      continue;
    params.add(std::move(param.key), std::move(param.value));
  }
  return 0;
}

std::string path_of_target(std::string_view target) {
  auto raw = target.substr(0, target.find('?'));
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '%' && i + 2 < raw.size()) {
      auto hi = hex_digit(raw[i + 1]);
      auto lo = hex_digit(raw[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(raw[i]);
  }
  return out;
}

} // namespace stepwise::http
