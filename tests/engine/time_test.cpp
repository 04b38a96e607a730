// engine/time: RFC 3339 times.
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
