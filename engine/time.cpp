#include "engine/time.hpp"

#include <cctype>
#include <cstdio>

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

struct civil {
  int64_t y;
  unsigned m;
  unsigned d;
};

// The date of a day since 1970-01-01 (the inverse of days_from_civil).
civil civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<int64_t>(yoe) + era * 400 + (m <= 2), m, d};
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
  auto ms = static_cast<unsigned>((us - secs * 1000000) / 1000);
  auto days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  auto day_secs = static_cast<unsigned>(secs - days * 86400);
  auto [y, m, d] = civil_from_days(days);
  if (y < 0 || y > 9999) {
    // Outside four digits: rare enough for the general path.
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02uT%02u:%02u:%02u.%03uZ",
                  static_cast<long long>(y), m, d, day_secs / 3600, day_secs / 60 % 60,
                  day_secs % 60, ms);
    return buf;
  }
  // Each event, operation and step carries times: this runs a dozen times
  // per operation on the HTTP path, where gmtime_r and snprintf cost ten
  // times these digits.
  std::string out(24, '\0');
  auto put = [&out](size_t at, unsigned v, int width) {
    for (int i = width - 1; i >= 0; --i, v /= 10)
      out[at + static_cast<size_t>(i)] = static_cast<char>('0' + v % 10);
  };
  put(0, static_cast<unsigned>(y), 4);
  out[4] = '-';
  put(5, m, 2);
  out[7] = '-';
  put(8, d, 2);
  out[10] = 'T';
  put(11, day_secs / 3600, 2);
  out[13] = ':';
  put(14, day_secs / 60 % 60, 2);
  out[16] = ':';
  put(17, day_secs % 60, 2);
  out[19] = '.';
  put(20, ms, 3);
  out[23] = 'Z';
  return out;
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
