#include "http/header_fields.hpp"

#include <algorithm>
#include <cctype>

namespace stepwise::http {

namespace {

// Whether `text` would end a header line written into an answer's head.
bool ends_header_line(std::string_view text) {
  return text.find_first_of("\r\n") != std::string_view::npos;
}

} // namespace

bool header_name_less::operator()(std::string_view a, std::string_view b) const {
  return std::lexicographical_compare(
    a.begin(), a.end(), b.begin(), b.end(),
    [](unsigned char x, unsigned char y) { return std::tolower(x) < std::tolower(y); });
}

bool header_fields::has(std::string_view name) const {
  auto it = fields_.lower_bound(name);
  return it != fields_.end() && !header_name_less{}(name, it->first);
}

const std::string& header_fields::get(std::string_view name) const {
  static const std::string none;
  // The first of equal names: the one received or set first.
  auto it = fields_.lower_bound(name);
  if (it == fields_.end() || header_name_less{}(name, it->first))
    return none;
  return it->second;
}

void header_fields::add(std::string name, std::string value) {
  if (ends_header_line(name) || ends_header_line(value))
    return;
  fields_.emplace(std::move(name), std::move(value));
}

void header_fields::set(std::string name, std::string value) {
  if (ends_header_line(name) || ends_header_line(value))
    return;
  erase(name);
  fields_.emplace(std::move(name), std::move(value));
}

void header_fields::erase(std::string_view name) {
  auto [first, last] = fields_.equal_range(name);
  fields_.erase(first, last);
}

} // namespace stepwise::http
