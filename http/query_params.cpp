#include "http/query_params.hpp"

#include <algorithm>

namespace stepwise::http {

void query_params::add(std::string key, std::string value) {
  items_.emplace_back(std::move(key), std::move(value));
}

bool query_params::has(std::string_view key) const {
  return count(key) > 0;
}

const std::string& query_params::get(std::string_view key) const {
  static const std::string none;
  for (auto& [k, v] : items_)
    if (k == key)
      return v;
  return none;
}

size_t query_params::count(std::string_view key) const {
  return static_cast<size_t>(std::count_if(items_.begin(), items_.end(),
                                           [&](const value_type& kv) { return kv.first == key; }));
}

} // namespace stepwise::http
