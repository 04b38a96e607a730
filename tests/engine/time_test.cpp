// engine/time: RFC 3339 times.
#include <cstdio>
#include <ctime>
#include <random>

#include <catch2/catch.hpp>

#include "engine/time.hpp"
#include "tests/engine/engine_fixtures.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::t0;

TEST_CASE("times format as RFC 3339 with milliseconds and parse back", "[engine]") {
  auto t = parse_time("2026-11-22T07:40:00.123Z");
  REQUIRE(t);
  CHECK(format_time(*t) == "2026-11-22T07:40:00.123Z");
  CHECK(parse_time("2026-11-22T08:40:00.123+01:00") == t);
  CHECK(format_time(from_micros(0)) == "1970-01-01T00:00:00.000Z");
  CHECK(!parse_time("2026-13-22T07:40:00Z"));
  CHECK(!parse_time("yesterday"));
  CHECK(!parse_time("2026-11-22T07:40:00"));
}

namespace {

// What format_time printed before it wrote its own digits: the C library's
// calendar.
std::string libc_format(int64_t us) {
  auto secs = us >= 0 ? us / 1000000 : (us - 999999) / 1000000;
  auto ms = (us - secs * 1000000) / 1000;
  auto tt = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

} // namespace

TEST_CASE("times format as the C library's calendar says", "[engine]") {
  // Day, year and century edges (leap days, 1900 and 2100 not leap, 2000
  // leap), times before 1970, and random instants from year 1 to 9999.
  std::vector<int64_t> at{0,
                          -1,
                          1,
                          999,
                          -999,
                          -1000,
                          951782400000000,
                          951868799999999,
                          4107456000000000,
                          -2208988800000000,
                          253402300799999999,
                          -62135596800000000};
  std::mt19937_64 rng{20261127};
  std::uniform_int_distribution<int64_t> any{-62135596800000000, 253402300799999999};
  for (int i = 0; i < 20000; ++i)
    at.push_back(any(rng));
  for (auto us : at) {
    INFO(us);
    REQUIRE(format_time(from_micros(us)) == libc_format(us));
    REQUIRE(parse_time(format_time(from_micros(us)))
            == from_micros(us >= 0 ? us / 1000 * 1000 : (us - 999) / 1000 * 1000));
  }
}
