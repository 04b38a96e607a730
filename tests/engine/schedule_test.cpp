// engine/schedule: fire times, the checks of a definition, catch-up.
#include <vector>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/engine/engine_fixtures.hpp"
#include "engine/schedule.hpp"

using namespace stepwise;
using test::utc;
using namespace std::chrono_literals;

namespace {

schedule periodic(duration d) {
  schedule s;
  s.id = "s";
  s.workflow = "w";
  s.every = d;
  return s;
}

schedule cron_schedule(const std::string& text, const std::string& zone = "UTC") {
  schedule s;
  s.id = "s";
  s.workflow = "w";
  s.cron = text;
  s.time_zone = zone;
  return s;
}

/// The fire times of `s` after `after`, `n` of them, as RFC 3339 text.
std::vector<std::string> fires(const schedule& s, const char* after, int n) {
  std::vector<std::string> out;
  auto t = utc(after);
  for (int i = 0; i < n; ++i) {
    auto next = next_fire(s, t);
    if (!next)
      break;
    out.push_back(format_time(*next));
    t = *next;
  }
  return out;
}

std::string check(const schedule& s) {
  auto err = check_schedule(s);
  return err ? message_of(err) : "";
}

} // namespace

TEST_CASE("schedules: every fires at the multiples of its period", "[engine][schedule]") {
  CHECK(fires(periodic(10s), "2026-11-27T10:00:03Z", 3)
        == std::vector<std::string>{"2026-11-27T10:00:10.000Z", "2026-11-27T10:00:20.000Z",
                                    "2026-11-27T10:00:30.000Z"});
  CHECK(fires(periodic(5min), "2026-11-27T10:05:00Z", 1)
        == std::vector<std::string>{"2026-11-27T10:10:00.000Z"});
  auto ends = periodic(10s);
  ends.end_at = utc("2026-11-27T10:00:20Z");
  CHECK(fires(ends, "2026-11-27T10:00:03Z", 5)
        == std::vector<std::string>{"2026-11-27T10:00:10.000Z", "2026-11-27T10:00:20.000Z"});
  auto spread = periodic(10s);
  spread.offset = 3500ms;
  CHECK(fires(spread, "2026-11-27T10:00:03Z", 3)
        == std::vector<std::string>{"2026-11-27T10:00:03.500Z", "2026-11-27T10:00:13.500Z",
                                    "2026-11-27T10:00:23.500Z"});
  CHECK(fires(spread, "2026-11-27T10:00:03.500Z", 1)
        == std::vector<std::string>{"2026-11-27T10:00:13.500Z"});
}

TEST_CASE("schedules: cron in a zone across the changes of the clocks", "[engine][schedule]") {
  SECTION("daily at 02:30 in Berlin: the skipped hour fires at the change, once") {
    CHECK(fires(cron_schedule("30 2 * * *", "Europe/Berlin"), "2026-03-27T12:00:00Z", 3)
          == std::vector<std::string>{"2026-03-28T01:30:00.000Z", "2026-03-29T01:00:00.000Z",
                                      "2026-03-30T00:30:00.000Z"});
  }
  SECTION("daily at 02:30 in Berlin: the repeated hour fires once") {
    CHECK(fires(cron_schedule("30 2 * * *", "Europe/Berlin"), "2026-10-24T12:00:00Z", 2)
          == std::vector<std::string>{"2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"});
  }
  SECTION("every half hour over the skipped hour: 02:00 and 02:30 are one fire") {
    CHECK(fires(cron_schedule("*/30 * * * *", "Europe/Berlin"), "2026-03-29T00:15:00Z", 3)
          == std::vector<std::string>{"2026-03-29T00:30:00.000Z", "2026-03-29T01:00:00.000Z",
                                      "2026-03-29T01:30:00.000Z"});
  }
  SECTION("every half hour over the repeated hour: its second pass does not fire") {
    CHECK(fires(cron_schedule("*/30 * * * *", "Europe/Berlin"), "2026-10-24T23:45:00Z", 3)
          == std::vector<std::string>{"2026-10-25T00:00:00.000Z", "2026-10-25T00:30:00.000Z",
                                      "2026-10-25T02:00:00.000Z"});
  }
  SECTION("a schedule created during the repeated hour's second pass") {
    CHECK(fires(cron_schedule("*/30 * * * *", "Europe/Berlin"), "2026-10-25T01:10:00Z", 1)
          == std::vector<std::string>{"2026-10-25T02:00:00.000Z"});
  }
  SECTION("UTC") {
    CHECK(fires(cron_schedule("0 9 29 2 *"), "2026-11-27T00:00:00Z", 1)
          == std::vector<std::string>{"2028-02-29T09:00:00.000Z"});
  }
}

TEST_CASE("schedules: a definition that cannot fire names the field", "[engine][schedule]") {
  CHECK(check(periodic(10s)).empty());
  CHECK(check(cron_schedule("0 * * * *", "Europe/Berlin")).empty());
  CHECK(check(cron_schedule("0 25 * * *"))
        == "cron: cron field 2 (hour) '25': 25 is out of range 0-23");
  CHECK(check(cron_schedule("0 * * * *", "Nowhere/Land"))
        == "time_zone: unknown time zone 'Nowhere/Land' (a name of the tz database, such as UTC "
           "or Europe/Berlin)");
  CHECK(check(periodic(500ms)) == "every: at least 1s");
  auto far = periodic(10s);
  far.offset = 10s;
  CHECK(check(far) == "offset: from 0 to less than every (and only with every)");
  auto both = cron_schedule("0 * * * *");
  both.every = 1min;
  CHECK(check(both) == "cron, every: exactly one of the two");
  auto neither = periodic(1min);
  neither.every.reset();
  CHECK(check(neither) == "cron, every: exactly one of the two");
  auto bad_id = periodic(1min);
  bad_id.id = "a b";
  CHECK(check(bad_id) == "id: only A-Z a-z 0-9 - _ . (got 'a b')");
  auto window = periodic(1min);
  window.catch_up_window = duration{0};
  CHECK(check(window) == "catch_up_window: must be positive");
}

TEST_CASE("schedules: the next step, on time or after missed fires", "[engine][schedule]") {
  auto s = periodic(10s);
  s.handled_until = utc("2026-11-27T10:00:00Z");
  SECTION("nothing due: wait for the next fire") {
    auto step = next_step(s, utc("2026-11-27T10:00:05Z"));
    CHECK(step.what == fire_step::kind::wait);
    CHECK(step.at == utc("2026-11-27T10:00:10Z"));
  }
  SECTION("a fire a little late is on time") {
    auto step = next_step(s, utc("2026-11-27T10:00:40Z"));
    CHECK(step.what == fire_step::kind::fire);
    CHECK(step.at == utc("2026-11-27T10:00:10Z"));
  }
  SECTION("paused: no step") {
    s.paused = true;
    auto step = next_step(s, utc("2026-11-27T10:00:40Z"));
    CHECK(step.what == fire_step::kind::wait);
    CHECK(!step.at);
  }
  // Down for 3 hours: 1,073 fires older than the grace, 7 within it.
  auto now = utc("2026-11-27T13:00:00Z");
  SECTION("catch-up none: the missed ones are skipped at once, then the recent fire") {
    s.catch_up = catch_up_policy::none;
    auto step = next_step(s, now);
    CHECK(step.what == fire_step::kind::skip_missed);
    CHECK(step.count == 1073);
    CHECK(step.at == utc("2026-11-27T12:58:50Z"));
    s.handled_until = *step.at;
    step = next_step(s, now);
    CHECK(step.what == fire_step::kind::fire);
    CHECK(step.at == utc("2026-11-27T12:59:00Z"));
  }
  SECTION("catch-up latest: skipped when a recent fire comes, else the latest fires") {
    s.catch_up = catch_up_policy::latest;
    CHECK(next_step(s, now).what == fire_step::kind::skip_missed);
    auto hourly = periodic(1h);
    hourly.catch_up = catch_up_policy::latest;
    hourly.handled_until = utc("2026-11-27T10:00:00Z");
    auto step = next_step(hourly, utc("2026-11-27T13:30:00Z"));
    CHECK(step.what == fire_step::kind::skip_missed);
    CHECK(step.count == 2);
    CHECK(step.at == utc("2026-11-27T12:00:00Z"));
    hourly.handled_until = *step.at;
    step = next_step(hourly, utc("2026-11-27T13:30:00Z"));
    CHECK(step.what == fire_step::kind::fire);
    CHECK(step.at == utc("2026-11-27T13:00:00Z"));
  }
  SECTION("catch-up all: each fires, but those out of the window") {
    s.catch_up = catch_up_policy::all;
    s.catch_up_window = 1h;
    auto step = next_step(s, now);
    CHECK(step.what == fire_step::kind::skip_missed);
    CHECK(step.count == 719);
    s.handled_until = *step.at;
    step = next_step(s, now);
    CHECK(step.what == fire_step::kind::fire);
    CHECK(step.at == utc("2026-11-27T12:00:00Z"));
  }
  SECTION("the key of a fire") {
    CHECK(fire_key("nightly", utc("2026-11-27T10:00:10Z"))
          == "schedule:nightly:2026-11-27T10:00:10.000Z");
  }
  SECTION("a trigger fires at its millisecond, after the last fire") {
    auto now = utc("2026-11-27T10:00:10Z") + std::chrono::microseconds{250};
    CHECK(trigger_time(s, now) == utc("2026-11-27T10:00:10Z"));
    s.last_fire = utc("2026-11-27T10:00:10Z");
    auto t = trigger_time(s, now);
    CHECK(t == utc("2026-11-27T10:00:10Z") + std::chrono::milliseconds{1});
    CHECK(fire_key("nightly", t) == "schedule:nightly:2026-11-27T10:00:10.001Z");
    CHECK(trigger_time(s, now + std::chrono::seconds{1}) == utc("2026-11-27T10:00:11Z"));
  }
}
