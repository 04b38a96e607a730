#include "engine/redact.hpp"

namespace stepwise {

namespace {

boost::json::value* find_pointer(boost::json::value& root, const std::string& ptr) {
  boost::json::error_code ec;
  return root.find_pointer(ptr, ec);
}

} // namespace

void collect_secret_strings(const boost::json::value& v, std::vector<std::string>& out) {
  if (v.is_string()) {
    auto& s = v.get_string();
    if (!s.empty())
      out.emplace_back(s.data(), s.size());
  } else if (v.is_object()) {
    for (auto& kv : v.get_object())
      collect_secret_strings(kv.value(), out);
  } else if (v.is_array()) {
    for (auto& x : v.get_array())
      collect_secret_strings(x, out);
  } else if (!v.is_null()) {
    out.emplace_back(boost::json::serialize(v));
  }
}

boost::json::object mask_paths(const boost::json::object& input,
                               const std::vector<std::string>& pointers) {
  if (pointers.empty())
    return input;
  boost::json::value root = input;
  for (auto& p : pointers)
    if (auto* v = find_pointer(root, p))
      *v = secret_mask;
  return std::move(root.as_object());
}

std::vector<std::string> secret_strings(const boost::json::object& input,
                                        const std::vector<std::string>& pointers,
                                        const transient_map& transient) {
  std::vector<std::string> out;
  if (!pointers.empty()) {
    boost::json::value root = input;
    for (auto& p : pointers)
      if (auto* v = find_pointer(root, p))
        collect_secret_strings(*v, out);
  }
  for (auto& kv : transient)
    if (kv.second.secret)
      collect_secret_strings(kv.second.value, out);
  return out;
}

std::string scrub(std::string text, const std::vector<std::string>& secrets) {
  for (auto& s : secrets) {
    if (s.empty())
      continue;
    for (auto pos = text.find(s); pos != std::string::npos; pos = text.find(s, pos + 3))
      text.replace(pos, s.size(), secret_mask);
  }
  return text;
}

namespace {

void scrub_value(boost::json::value& v, const std::vector<std::string>& secrets) {
  if (auto* s = v.if_string()) {
    *s = scrub(std::string{s->data(), s->size()}, secrets);
  } else if (auto* o = v.if_object()) {
    scrub_json(*o, secrets);
  } else if (auto* a = v.if_array()) {
    for (auto& x : *a)
      scrub_value(x, secrets);
  }
}

} // namespace

void scrub_json(boost::json::object& x, const std::vector<std::string>& secrets) {
  if (secrets.empty())
    return;
  for (auto& kv : x)
    scrub_value(kv.value(), secrets);
}

} // namespace stepwise
