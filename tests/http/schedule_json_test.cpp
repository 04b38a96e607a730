// The JSON of schedules without a server: what a definition may hold,
// what each mistake says, and the form a schedule is read in.

#include <catch2/catch.hpp>

#include "engine/workflow.hpp"
#include "http/schedule_json.hpp"

using namespace stepwise;
using namespace stepwise::http;
namespace json = boost::json;

namespace {

// Decodes `text` as a create's body; returns the error's message, or "".
std::string decode_refusal(const std::string& text, const std::string& path_id = "") {
  schedule s;
  auto err = decode_schedule(json::parse(text), path_id, s);
  if (!err)
    return "";
  CHECK(err->status == 400);
  CHECK(err->code == "invalid_argument");
  return err->message;
}

} // namespace

TEST_CASE("a schedule's definition decodes with its defaults", "[http][schedules]") {
  schedule s;
  REQUIRE_FALSE(decode_schedule(
    json::parse(R"({"id":"nightly","workflow":"quick","input":{"n":1},"every":"1h30m"})"), "", s));
  CHECK(s.id == "nightly");
  CHECK(s.workflow == "quick");
  CHECK_FALSE(s.version);
  CHECK(s.input == json::object{{"n", 1}});
  CHECK(s.cron.empty());
  REQUIRE(s.every);
  CHECK(*s.every == std::chrono::minutes(90));
  CHECK(s.offset == duration{0});
  CHECK(s.time_zone == "UTC");
  CHECK(s.overlap == overlap_policy::skip);
  CHECK(s.catch_up == catch_up_policy::none);
  CHECK(s.catch_up_window == std::chrono::hours(24));
  CHECK_FALSE(s.paused);
  CHECK_FALSE(s.end_at);

  // Every field, nulls for the optional ones read as absent.
  schedule full;
  REQUIRE_FALSE(decode_schedule(json::parse(R"({"workflow":"quick","version":2,"input":{},
    "cron":"*/15 9-17 * * mon-fri","every":null,"time_zone":"Europe/Berlin","overlap":"queue",
    "catch_up":"all","catch_up_window":"2h","paused":true,"end_at":"2027-01-01T00:00:00Z"})"),
                                "s1", full));
  CHECK(full.id == "s1");
  CHECK(full.version == 2);
  CHECK(full.cron == "*/15 9-17 * * mon-fri");
  CHECK_FALSE(full.every);
  CHECK(full.time_zone == "Europe/Berlin");
  CHECK(full.overlap == overlap_policy::queue);
  CHECK(full.catch_up == catch_up_policy::all);
  CHECK(full.catch_up_window == std::chrono::hours(2));
  CHECK(full.paused);
  CHECK(full.end_at == parse_time("2027-01-01T00:00:00Z"));
  schedule spread;
  REQUIRE_FALSE(decode_schedule(
    json::parse(R"({"id":"s","workflow":"w","input":{},"every":"1h","offset":"15m"})"), "",
    spread));
  CHECK(spread.offset == std::chrono::minutes(15));
  schedule nulls;
  REQUIRE_FALSE(decode_schedule(json::parse(R"({"id":"x","workflow":"w","input":{},"every":"1m",
    "version":null,"cron":null,"offset":null,"time_zone":null,"overlap":null,"catch_up":null,
    "catch_up_window":null,"paused":null,"end_at":null})"),
                                "", nulls));
  CHECK(nulls.time_zone == "UTC");
  CHECK(same_definition(nulls, [] {
    schedule d;
    d.id = "x";
    d.workflow = "w";
    d.every = std::chrono::minutes(1);
    return d;
  }()));
}

TEST_CASE("a bad definition is refused naming the field", "[http][schedules]") {
  auto base = std::string(R"("id":"s","workflow":"quick","input":{})");
  CHECK(decode_refusal("[1]").find("must be a JSON object") != std::string::npos);
  CHECK(decode_refusal(R"({"workflow":"quick","input":{},"every":"1m"})")
        == "field 'id' is required");
  CHECK(decode_refusal(R"({"id":5,"workflow":"quick","input":{},"every":"1m"})")
        == "field 'id' must be a string, not a number");
  CHECK(decode_refusal(R"({"id":"s","input":{},"every":"1m"})") == "field 'workflow' is required");
  CHECK(decode_refusal(R"({"id":"s","workflow":"","input":{},"every":"1m"})")
        == "field 'workflow' must not be empty");
  CHECK(decode_refusal(R"({"id":"s","workflow":"quick","every":"1m"})")
          .find("field 'input' is required")
        == 0);
  CHECK(decode_refusal(R"({"id":"s","workflow":"quick","input":[],"every":"1m"})")
        == "field 'input' must be an object, not an array");
  CHECK(decode_refusal("{" + base + R"(,"version":"2","every":"1m"})")
        == "field 'version' must be an integer, not a string");
  CHECK(decode_refusal("{" + base + R"(,"version":0,"every":"1m"})").find("field 'version'") == 0);
  CHECK(decode_refusal("{" + base + "}").find("field 'cron' (e.g. \"0 3 * * *\") or 'every'") == 0);
  CHECK(decode_refusal("{" + base + R"(,"cron":"* * * * *","every":"1m"})")
        == "fields 'cron' and 'every' are both given: a schedule takes one");
  CHECK(decode_refusal("{" + base + R"(,"cron":7})")
        == "field 'cron' must be a string, not a number");
  CHECK(decode_refusal("{" + base + R"(,"every":"soon"})")
        == "field 'every' must be a duration such as 30s, 5m, 2h or 1h30m, not 'soon'");
  CHECK(decode_refusal("{" + base + R"(,"every":30})")
        == "field 'every' must be a string, not a number");
  CHECK(decode_refusal("{" + base + R"(,"every":"1m","offset":"later"})")
          .find("field 'offset' must be a duration")
        == 0);
  CHECK(decode_refusal("{" + base + R"(,"every":"1m","overlap":"sometimes"})")
        == "field 'overlap' must be one of skip, queue, allow, not 'sometimes'");
  CHECK(decode_refusal("{" + base + R"(,"every":"1m","catch_up":"maybe"})")
        == "field 'catch_up' must be one of none, latest, all, not 'maybe'");
  CHECK(decode_refusal("{" + base + R"(,"every":"1m","catch_up_window":"a day"})")
          .find("field 'catch_up_window' must be a duration")
        == 0);
  CHECK(decode_refusal("{" + base + R"(,"every":"1m","time_zone":""})")
        == "field 'time_zone' must not be empty");
  CHECK(decode_refusal("{" + base + R"(,"every":"1m","paused":"yes"})")
        == "field 'paused' must be a boolean, not a string");
  CHECK(decode_refusal("{" + base + R"(,"every":"1m","end_at":"tomorrow"})")
        == "field 'end_at' must be an RFC 3339 time such as 2027-01-01T00:00:00Z, not 'tomorrow'");
  CHECK(
    decode_refusal("{" + base + R"(,"every":"1m","colour":"red"})").find("unknown field 'colour'")
    == 0);
  CHECK(decode_refusal("{" + base + R"(,"every":"1m","fired":3})")
        == "field 'fired' is written by the engine, not by clients: leave it out");
  CHECK(decode_refusal("{" + base + R"(,"every":")" + std::string(100, 'x') + "\"}")
          .find(std::string(64, 'x') + "...'")
        != std::string::npos);
}

TEST_CASE("a definition leaves the state it is decoded into", "[http][schedules]") {
  schedule s;
  s.revision = 4;
  s.fired = 9;
  s.last_operation = "op-1";
  s.every = std::chrono::hours(1);
  REQUIRE_FALSE(decode_schedule(
    json::parse(R"({"id":"s","workflow":"quick","input":{},"cron":"0 3 * * *"})"), "", s));
  CHECK(s.cron == "0 3 * * *");
  CHECK_FALSE(s.every);
  CHECK(s.revision == 4);
  CHECK(s.fired == 9);
  CHECK(s.last_operation == "op-1");
  // A refused one changes nothing.
  REQUIRE(decode_schedule(json::parse(R"({"id":"t","workflow":"quick","input":{}})"), "", s));
  CHECK(s.id == "s");
}

TEST_CASE("a replacement takes its id from the path", "[http][schedules]") {
  auto body = std::string(R"("workflow":"quick","input":{},"every":"1m")");
  CHECK(decode_refusal("{" + body + "}", "nightly").empty());
  CHECK(decode_refusal(R"({"id":"nightly",)" + body + "}", "nightly").empty());
  CHECK(decode_refusal(R"({"id":"daily",)" + body + "}", "nightly")
        == "field 'id' is 'daily' but the path names schedule 'nightly' (leave 'id' out, or "
           "make them match)");
}

TEST_CASE("a schedule reads as the API shows it", "[http][schedules]") {
  schedule_view v;
  auto& s = v.schedule;
  s.id = "nightly";
  s.workflow = "quick";
  s.input = {{"n", 1}};
  s.every = std::chrono::seconds(90);
  s.revision = 3;
  s.created_at = *parse_time("2026-11-22T07:40:00.123Z");
  s.updated_at = *parse_time("2026-11-22T08:00:00Z");
  s.fired = 4;
  s.skipped = 1;
  auto out = to_json(v);
  CHECK(out.at("every") == "1m30s");
  CHECK(out.at("offset") == "0s");
  CHECK(out.at("cron").is_null());
  CHECK(out.at("version").is_null());
  CHECK(out.at("catch_up_window") == "1d");
  CHECK(out.at("overlap") == "skip");
  CHECK(out.at("catch_up") == "none");
  CHECK(out.at("created_at") == "2026-11-22T07:40:00.123Z");
  CHECK(out.at("next_fire").is_null());
  CHECK(out.at("last_operation").is_null());
  CHECK(out.at("last_fire").is_null());
  CHECK(out.at("end_at").is_null());
  CHECK(out.at("fired") == 4);
  CHECK(out.at("skipped") == 1);
  CHECK(out.at("revision") == 3);
  v.next_fire = *parse_time("2026-11-22T09:00:00Z");
  s.last_operation = "op-1";
  s.last_fire = *parse_time("2026-11-22T08:58:30Z");
  s.cron = "0 9 * * *";
  s.every.reset();
  s.time_zone = "Europe/Berlin";
  out = to_json(v);
  CHECK(out.at("cron") == "0 9 * * *");
  CHECK(out.at("every").is_null());
  CHECK(out.at("offset").is_null());
  CHECK(out.at("time_zone") == "Europe/Berlin");
  CHECK(out.at("next_fire") == "2026-11-22T09:00:00.000Z");
  CHECK(out.at("last_operation") == "op-1");
  CHECK(out.at("last_fire") == "2026-11-22T08:58:30.000Z");

  // What a client reads back is a definition it may send again, once the
  // engine's fields are left out.
  for (auto k : {"revision", "created_at", "updated_at", "next_fire", "last_operation", "last_fire",
                 "fired", "skipped"})
    out.erase(k);
  schedule again;
  REQUIRE_FALSE(decode_schedule(out, "", again));
  CHECK(same_definition(again, s));
}

TEST_CASE("a schedule's secret input is shown masked", "[http][schedules]") {
  registry reg;
  REQUIRE(reg.add(workflow("secretive", 1)
                    .step(1, make_step("only", [](step_context&) { return done(); }))
                    .secret("/password")));
  REQUIRE(reg.add(workflow("secretive", 2)
                    .step(1, make_step("only", [](step_context&) { return done(); }))
                    .secret("/token")));
  schedule_view v;
  v.schedule.workflow = "secretive";
  v.schedule.input = {{"password", "hunter2"}, {"token", "t0k"}, {"user", "me"}};
  auto shown = masked(v, reg);
  CHECK(shown.schedule.input
        == json::object{{"password", "***"}, {"token", "***"}, {"user", "me"}});
  v.schedule.workflow = "unknown";
  CHECK(masked(v, reg).schedule.input == v.schedule.input);
}
