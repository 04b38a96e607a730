#include "http/query.hpp"

#include <cctype>

#include "engine/labels.hpp"

namespace stepwise::http {

std::optional<api_error> query::only(std::initializer_list<std::string_view> known,
                                     std::initializer_list<std::string_view> repeatable) const {
  for (auto& kv : params_) {
    bool ok = false;
    for (auto k : known)
      ok = ok || k == kv.first;
    if (!ok) {
      std::string list;
      for (auto k : known)
        list += (list.empty() ? "" : ", ") + std::string(k);
      return invalid_argument("unknown query parameter '" + kv.first + "'"
                              + (list.empty() ? " (none allowed)" : " (allowed: " + list + ")"));
    }
    bool repeats = false;
    for (auto k : repeatable)
      repeats = repeats || k == kv.first;
    if (!repeats && params_.count(kv.first) > 1)
      return invalid_argument("query parameter '" + kv.first + "' is given more than once");
  }
  return std::nullopt;
}

std::optional<api_error> query::integer(const char* name, int64_t lo, int64_t hi,
                                        int64_t& out) const {
  if (!params_.has(name))
    return std::nullopt;
  auto text = params_.get(name);
  auto bad = [&] {
    return invalid_argument("query parameter '" + std::string(name) + "' must be an integer from "
                            + std::to_string(lo) + " to " + std::to_string(hi) + ", not '" + text
                            + "'");
  };
  size_t i = 0;
  bool negative = !text.empty() && text[0] == '-';
  if (negative)
    i = 1;
  if (i == text.size() || text.size() - i > 18)
    return bad();
  int64_t v = 0;
  for (; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])))
      return bad();
    v = v * 10 + (text[i] - '0');
  }
  if (negative)
    v = -v;
  if (v < lo || v > hi)
    return bad();
  out = v;
  return std::nullopt;
}

std::optional<api_error> query::seconds(const char* name, double hi, double& out) const {
  if (!params_.has(name))
    return std::nullopt;
  auto text = params_.get(name);
  auto bad = [&] {
    return invalid_argument("query parameter '" + std::string(name)
                            + "' must be a number of seconds from 0 to "
                            + std::to_string(static_cast<int64_t>(hi)) + ", not '" + text + "'");
  };
  // Digits, optionally one dot and more digits: no signs, exponents, hex,
  // "inf" or "nan" that strtod would take.
  size_t digits = 0;
  size_t dots = 0;
  for (auto c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)))
      ++digits;
    else if (c == '.')
      ++dots;
    else
      return bad();
  }
  if (digits == 0 || dots > 1 || text.size() > 16)
    return bad();
  auto v = std::stod(text);
  if (v > hi)
    return bad();
  out = v;
  return std::nullopt;
}

std::optional<api_error> query::text(const char* name, std::string& out, bool allow_empty) const {
  if (!params_.has(name))
    return std::nullopt;
  auto v = params_.get(name);
  if (v.empty() && !allow_empty)
    return invalid_argument("query parameter '" + std::string(name) + "' must not be empty");
  out = std::move(v);
  return std::nullopt;
}

std::optional<api_error> query::time(const char* name, std::optional<time_point>& out) const {
  if (!params_.has(name))
    return std::nullopt;
  auto& v = params_.get(name);
  auto t = parse_time(v);
  if (!t)
    return invalid_argument("query parameter '" + std::string(name)
                            + "' must be an RFC 3339 time (2026-01-02T03:04:05Z), not '" + v + "'");
  out = *t;
  return std::nullopt;
}

std::optional<api_error> query::labels(
  const char* name, std::vector<std::pair<std::string, std::string>>& out) const {
  for (auto& [k, v] : params_) {
    if (k != name)
      continue;
    auto eq = v.find('=');
    auto key = v.substr(0, eq);
    if (eq == std::string::npos || !valid_label_key(key))
      return invalid_argument("query parameter '" + std::string(name)
                              + "' must be key=value, the key of 1 to 63 characters of "
                                "a-z 0-9 _ . -; not '"
                              + v + "'");
    auto value = v.substr(eq + 1);
    if (value.size() > max_label_value)
      return invalid_argument("query parameter '" + std::string(name) + "': the value of '" + key
                              + "' must have at most " + std::to_string(max_label_value)
                              + " bytes");
    out.emplace_back(std::move(key), std::move(value));
    if (out.size() > max_labels)
      return invalid_argument("query parameter '" + std::string(name) + "' is given more than "
                              + std::to_string(max_labels) + " times");
  }
  return std::nullopt;
}

} // namespace stepwise::http
