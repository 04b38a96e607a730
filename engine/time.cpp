#include "engine/time.hpp"

#include <cctype>
#include <cstdio>
#include <ctime>

namespace stepwise {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool read_int(std::string_view s, size_t pos, size_t len, int& out) {
  if (pos + len > s.size())
    return false;
  int v = 0;
  for (size_t i = pos; i < pos + len; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i])))
      return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

} // namespace

std::string format_time(time_point t) {
  auto us = to_micros(t);
  auto secs = us >= 0 ? us / 1000000 : (us - 999999) / 1000000;
  auto ms = (us - secs * 1000000) / 1000;
  std::time_t tt = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

std::optional<time_point> parse_time(std::string_view s) {
  int y, mo, d, h, mi, se;
  if (!read_int(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !read_int(s, 5, 2, mo) || s[7] != '-'
      || !read_int(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ')
      || !read_int(s, 11, 2, h) || s[13] != ':' || !read_int(s, 14, 2, mi) || s[16] != ':'
      || !read_int(s, 17, 2, se))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
    return std::nullopt;
  size_t pos = 19;
  int64_t frac_us = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int64_t scale = 100000;
    size_t start = pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      frac_us += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start)
      return std::nullopt;
  }
  int64_t offset_s = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!read_int(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':'
        || !read_int(s, pos + 4, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset_s = (oh * 3600 + om * 60) * (s[pos] == '+' ? 1 : -1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size())
    return std::nullopt;
  auto days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  int64_t secs = days * 86400 + h * 3600 + mi * 60 + se - offset_s;
  return from_micros(secs * 1000000 + frac_us);
}

} // namespace stepwise
