#include "engine/cron.hpp"

#include <array>
#include <cctype>
#include <sstream>
#include <vector>

#include <date/date.h>

#include "engine/errc.hpp"

namespace stepwise {

namespace {

struct field_spec {
  const char* name;
  int min;
  int max;
  /// Names of the values from `min` on (months, weekdays), or none.
  const char* const* names;
};

constexpr const char* month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                       "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr const char* weekday_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

constexpr std::array<field_spec, 5> fields{{
  {"minute", 0, 59, nullptr},
  {"hour", 0, 23, nullptr},
  {"day of month", 1, 31, nullptr},
  {"month", 1, 12, month_names},
  // 7 is Sunday too; folded into 0 below.
  {"day of week", 0, 7, weekday_names},
}};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

caf::error field_error(size_t index, const std::string& text, const std::string& why) {
  auto& f = fields[index];
  return make_error(errc::invalid_argument, "cron field " + std::to_string(index + 1) + " ("
                                              + f.name + ") '" + text + "': " + why);
}

/// Parses one value of field `f`: a number or (months, weekdays) a name.
std::optional<int> value_of(const field_spec& f, const std::string& text) {
  if (text.empty())
    return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(text[0]))) {
    if (text.size() > 2)
      return std::nullopt;
    for (char c : text)
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return std::nullopt;
    return std::stoi(text);
  }
  if (!f.names || text.size() != 3)
    return std::nullopt;
  std::string lower;
  for (char c : text)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  int count = f.max - f.min + 1 - (f.max == 7 ? 1 : 0);
  for (int i = 0; i < count; ++i)
    if (lower == f.names[i])
      return f.min + i;
  return std::nullopt;
}

/// Sets in `bits` the values `part` (one item of a list) names.
template <size_t N>
caf::error parse_part(size_t index, const std::string& whole, const std::string& part,
                      std::bitset<N>& bits) {
  auto& f = fields[index];
  std::string range = part;
  int step = 1;
  if (auto slash = part.find('/'); slash != std::string::npos) {
    range = part.substr(0, slash);
    auto s = part.substr(slash + 1);
    auto n = value_of(field_spec{f.name, 1, 99, nullptr}, s);
    if (!n || *n < 1)
      return field_error(index, whole, "the step '" + s + "' is not a number from 1 on");
    step = *n;
  }
  int lo = f.min;
  int hi = f.max == 7 ? 6 : f.max;
  if (range != "*") {
    auto dash = range.find('-');
    auto first = range.substr(0, dash);
    auto a = value_of(f, first);
    if (!a)
      return field_error(index, whole, "'" + first + "' is not a value of this field");
    lo = *a;
    if (dash != std::string::npos) {
      auto second = range.substr(dash + 1);
      auto b = value_of(f, second);
      if (!b)
        return field_error(index, whole, "'" + second + "' is not a value of this field");
      hi = *b;
    } else if (part.find('/') == std::string::npos) {
      hi = lo;
    }
    for (int v : {lo, hi})
      if (v < f.min || v > f.max)
        return field_error(index, whole,
                           std::to_string(v) + " is out of range " + std::to_string(f.min) + "-"
                             + std::to_string(f.max));
    if (hi < lo)
      return field_error(index, whole, "the range ends before it begins");
  }
  for (int v = lo; v <= hi; v += step)
    bits.set(static_cast<size_t>(f.max == 7 ? v % 7 : v));
  return caf::none;
}

template <size_t N>
caf::error parse_field(size_t index, const std::string& text, std::bitset<N>& bits) {
  for (auto& part : split(text, ','))
    if (auto err = parse_part(index, text, part, bits))
      return err;
  return caf::none;
}

} // namespace

caf::expected<cron_expr> cron_expr::parse(const std::string& text) {
  std::istringstream in{text};
  std::vector<std::string> parts;
  for (std::string p; in >> p;)
    parts.push_back(p);
  if (parts.size() != 5)
    return make_error(errc::invalid_argument,
                      "cron '" + text + "' has " + std::to_string(parts.size())
                        + " fields; it needs five: minute hour day-of-month month day-of-week");
  cron_expr out;
  if (auto err = parse_field(0, parts[0], out.minutes_))
    return err;
  if (auto err = parse_field(1, parts[1], out.hours_))
    return err;
  if (auto err = parse_field(2, parts[2], out.days_))
    return err;
  if (auto err = parse_field(3, parts[3], out.months_))
    return err;
  if (auto err = parse_field(4, parts[4], out.weekdays_))
    return err;
  out.any_day_ = parts[2][0] == '*';
  out.any_weekday_ = parts[4][0] == '*';
  return out;
}

bool cron_expr::day_matches(int day, int month, int weekday) const {
  if (!months_.test(static_cast<size_t>(month)))
    return false;
  bool d = days_.test(static_cast<size_t>(day));
  bool w = weekdays_.test(static_cast<size_t>(weekday));
  if (any_day_ || any_weekday_)
    return d && w;
  return d || w;
}

bool cron_expr::matches(local_minutes t) const {
  auto day = date::floor<date::days>(t);
  date::year_month_day ymd{day};
  date::hh_mm_ss<std::chrono::minutes> hm{t - day};
  auto wd = date::weekday{day}.c_encoding();
  return day_matches(static_cast<int>(unsigned(ymd.day())), static_cast<int>(unsigned(ymd.month())),
                     static_cast<int>(wd))
         && hours_.test(static_cast<size_t>(hm.hours().count()))
         && minutes_.test(static_cast<size_t>(hm.minutes().count()));
}

std::optional<local_minutes> cron_expr::next_after(local_minutes t) const {
  auto end = t + date::days{366 * 8};
  auto cur = t + std::chrono::minutes{1};
  while (cur <= end) {
    auto day = date::floor<date::days>(cur);
    date::year_month_day ymd{day};
    if (!day_matches(static_cast<int>(unsigned(ymd.day())), static_cast<int>(unsigned(ymd.month())),
                     static_cast<int>(date::weekday{day}.c_encoding()))) {
      cur = day + date::days{1};
      continue;
    }
    date::hh_mm_ss<std::chrono::minutes> hm{cur - day};
    if (!hours_.test(static_cast<size_t>(hm.hours().count()))) {
      cur = day + hm.hours() + std::chrono::hours{1};
      continue;
    }
    if (!minutes_.test(static_cast<size_t>(hm.minutes().count()))) {
      cur += std::chrono::minutes{1};
      continue;
    }
    return cur;
  }
  return std::nullopt;
}

} // namespace stepwise
