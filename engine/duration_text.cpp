#include "engine/duration_text.hpp"

#include <array>
#include <cctype>
#include <cstdint>

namespace stepwise {

namespace {

struct unit {
  std::string_view name;
  int64_t micros;
};

// Largest first; "ms" before "m" so that a prefix does not take it.
constexpr std::array<unit, 5> units{{
  {"d", 86'400'000'000},
  {"h", 3'600'000'000},
  {"m", 60'000'000},
  {"s", 1'000'000},
  {"ms", 1'000},
}};

} // namespace

std::optional<duration> parse_duration_text(std::string_view text) {
  if (text.empty())
    return std::nullopt;
  int64_t total = 0;
  size_t last_unit = 0; // index + 1 of the unit before: each comes once, largest first
  size_t i = 0;
  while (i < text.size()) {
    int64_t n = 0;
    size_t digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (++digits > 12)
        return std::nullopt;
      n = n * 10 + (text[i] - '0');
      ++i;
    }
    if (digits == 0)
      return std::nullopt;
    size_t end = i;
    while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end])))
      ++end;
    auto name = text.substr(i, end - i);
    size_t found = 0;
    for (size_t u = 0; u < units.size(); ++u)
      if (units[u].name == name)
        found = u + 1;
    if (found == 0 || found <= last_unit)
      return std::nullopt;
    last_unit = found;
    total += n * units[found - 1].micros;
    i = end;
  }
  return duration{total};
}

std::string format_duration_text(duration d) {
  auto left = d.count();
  if (left == 0)
    return "0s";
  std::string out;
  if (left < 0) {
    out = "-";
    left = -left;
  }
  for (auto& u : units) {
    if (left >= u.micros) {
      out += std::to_string(left / u.micros);
      out += u.name;
      left %= u.micros;
    }
  }
  return out.empty() || out == "-" ? "0s" : out;
}

} // namespace stepwise
