// engine/cron and engine/zone: cron expressions and time zones.
#include <catch2/catch.hpp>

#include "engine/cron.hpp"
#include "engine/errc.hpp"
#include "tests/engine/engine_fixtures.hpp"
#include "engine/zone.hpp"

using namespace stepwise;
using test::utc;
using namespace std::chrono_literals;
using namespace date::literals;

namespace {

local_minutes at(date::year_month_day d, int h, int m) {
  return local_minutes{date::local_days{d}} + std::chrono::hours{h} + std::chrono::minutes{m};
}

cron_expr cron(const std::string& text) {
  auto c = cron_expr::parse(text);
  REQUIRE(c);
  return *c;
}

std::string error_of(const std::string& text) {
  auto c = cron_expr::parse(text);
  REQUIRE(!c);
  return message_of(c.error());
}

} // namespace

TEST_CASE("cron: fields, lists, ranges, steps and names", "[engine][cron]") {
  auto start = at(2026_y / 11 / 27, 10, 7);
  SECTION("every minute") {
    CHECK(cron("* * * * *").next_after(start) == start + 1min);
  }
  SECTION("*/15: the next quarter hour") {
    CHECK(cron("*/15 * * * *").next_after(start) == at(2026_y / 11 / 27, 10, 15));
  }
  SECTION("a list and a range with a step") {
    auto c = cron("5,50 8-18/5 * * *");
    CHECK(c.next_after(start) == at(2026_y / 11 / 27, 13, 5));
    CHECK(c.next_after(at(2026_y / 11 / 27, 13, 5)) == at(2026_y / 11 / 27, 13, 50));
    CHECK(c.next_after(at(2026_y / 11 / 27, 18, 50)) == at(2026_y / 11 / 28, 8, 5));
  }
  SECTION("a/n runs from a to the end of the field") {
    auto c = cron("0 20/2 * * *");
    CHECK(c.next_after(start) == at(2026_y / 11 / 27, 20, 0));
    CHECK(c.next_after(at(2026_y / 11 / 27, 22, 0)) == at(2026_y / 11 / 28, 20, 0));
  }
  SECTION("month and day names, in any case") {
    auto c = cron("30 6 * JAN,jul Mon-fri");
    // 2027-01-01 is a Friday.
    CHECK(c.next_after(start) == at(2027_y / 1 / 1, 6, 30));
    CHECK(c.next_after(at(2027_y / 1 / 1, 6, 30)) == at(2027_y / 1 / 4, 6, 30));
  }
  SECTION("Sunday is 0 and 7") {
    // 2026-11-29 is a Sunday.
    CHECK(cron("0 0 * * 0").next_after(start) == at(2026_y / 11 / 29, 0, 0));
    CHECK(cron("0 0 * * 7").next_after(start) == at(2026_y / 11 / 29, 0, 0));
    CHECK(cron("0 0 * * 5-7").next_after(start) == at(2026_y / 11 / 28, 0, 0));
  }
  SECTION("two restricted day fields: either matches") {
    // The 1st of the month or a Monday (2026-11-30).
    auto c = cron("0 12 1 * mon");
    CHECK(c.next_after(start) == at(2026_y / 11 / 30, 12, 0));
    CHECK(c.next_after(at(2026_y / 11 / 30, 12, 0)) == at(2026_y / 12 / 1, 12, 0));
  }
  SECTION("February 29th comes every four years") {
    auto c = cron("0 9 29 2 *");
    CHECK(c.next_after(start) == at(2028_y / 2 / 29, 9, 0));
    CHECK(c.next_after(at(2028_y / 2 / 29, 9, 0)) == at(2032_y / 2 / 29, 9, 0));
  }
  SECTION("a day that never comes") {
    CHECK(!cron("0 0 30 2 *").next_after(start));
  }
  SECTION("matches agrees with next_after") {
    auto c = cron("*/7 3,4 * * *");
    auto t = start;
    for (int i = 0; i < 20; ++i) {
      auto n = c.next_after(t);
      REQUIRE(n);
      CHECK(c.matches(*n));
      for (auto m = t + 1min; m < *n; m += 1min)
        REQUIRE(!c.matches(m));
      t = *n;
    }
  }
}

TEST_CASE("cron: what is wrong names the field", "[engine][cron]") {
  CHECK(error_of("* * * *")
        == "cron '* * * *' has 4 fields; it needs five: minute hour "
           "day-of-month month day-of-week");
  CHECK(error_of("61 * * * *") == "cron field 1 (minute) '61': 61 is out of range 0-59");
  CHECK(error_of("* 24 * * *") == "cron field 2 (hour) '24': 24 is out of range 0-23");
  CHECK(error_of("* * 0 * *") == "cron field 3 (day of month) '0': 0 is out of range 1-31");
  CHECK(error_of("* * * foo *")
        == "cron field 4 (month) 'foo': 'foo' is not a value of this field");
  CHECK(error_of("* * * * 8") == "cron field 5 (day of week) '8': 8 is out of range 0-7");
  CHECK(error_of("*/0 * * * *")
        == "cron field 1 (minute) '*/0': the step '0' is not a number from 1 on");
  CHECK(error_of("* 5-2 * * *") == "cron field 2 (hour) '5-2': the range ends before it begins");
  CHECK(error_of("1,,2 * * * *")
        == "cron field 1 (minute) '1,,2': '' is not a value of this field");
}

TEST_CASE("zones: unknown names, and local times across a change of the clocks", "[engine][cron]") {
  CHECK(message_of(zone::find("Mars/Olympus").error())
        == "unknown time zone 'Mars/Olympus' (a name of the tz database, such as UTC or "
           "Europe/Berlin)");
  auto berlin = zone::find("Europe/Berlin");
  REQUIRE(berlin);
  SECTION("an ordinary minute") {
    CHECK(berlin->to_sys(at(2026_y / 11 / 27, 10, 0)) == utc("2026-11-27T09:00:00Z"));
    CHECK(berlin->to_local(utc("2026-11-27T09:00:59Z")) == at(2026_y / 11 / 27, 10, 0));
  }
  SECTION("the skipped hour (2026-03-29 02:00-03:00) is the instant of the change") {
    CHECK(berlin->to_sys(at(2026_y / 3 / 29, 2, 30)) == utc("2026-03-29T01:00:00Z"));
    CHECK(berlin->to_sys(at(2026_y / 3 / 29, 3, 0)) == utc("2026-03-29T01:00:00Z"));
  }
  SECTION("the repeated hour (2026-10-25 02:00-03:00) is its first occurrence") {
    CHECK(berlin->to_sys(at(2026_y / 10 / 25, 2, 30)) == utc("2026-10-25T00:30:00Z"));
    CHECK(berlin->to_local(utc("2026-10-25T01:30:00Z")) == at(2026_y / 10 / 25, 2, 30));
  }
}
