// Schedules over HTTP, end to end through the engine's schedule keeper:
// create (201, the same again 200, another body 409), read, replace,
// pause, resume, trigger (202 with the operation, which names its
// schedule and is listed by ?schedule=), delete; 400s that name the
// field; the router's 405 and 415; the metrics.

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

const std::string schedules = "/api/v1/schedules";

// A cron that fires on January 1st only: no fire of its own while a test
// runs (unless it runs at midnight on New Year's Eve).
constexpr const char* yearly_cron = R"("cron":"0 0 1 1 *")";

std::string field_text(const reply& r, const char* key) {
  auto& v = r.json.at(key);
  return v.is_string() ? std::string(v.get_string()) : boost::json::serialize(v);
}

} // namespace

TEST_CASE("a schedule is created once, read, replaced, paused and deleted", "[http][schedules]") {
  http_fixture fx;
  auto body = std::string(R"({"id":"nightly","workflow":"quick","input":{"n":1},"every":"1h"})");
  auto created = fx.post(schedules, body);
  INFO(created.body);
  REQUIRE(created.status == 201);
  CHECK(created.header("Location") == schedules + "/nightly");
  CHECK(field_text(created, "every") == "1h");
  CHECK(created.json.at("cron").is_null());
  CHECK(field_text(created, "time_zone") == "UTC");
  CHECK(field_text(created, "overlap") == "skip");
  CHECK(field_text(created, "catch_up") == "none");
  CHECK(field_text(created, "catch_up_window") == "1d");
  CHECK(created.json.at("paused") == false);
  CHECK(created.json.at("revision") == 1);
  CHECK(created.json.at("fired") == 0);
  CHECK(created.json.at("last_operation").is_null());
  CHECK(created.json.at("next_fire").is_string());

  // The same definition again, also with its defaults spelt out: 200.
  auto again = fx.post(schedules, body);
  CHECK(again.status == 200);
  CHECK(again.json == created.json);
  CHECK(fx.post(schedules, R"({"id":"nightly","workflow":"quick","input":{"n":1},"every":"1h",)"
                           R"("time_zone":"UTC","overlap":"skip","paused":false})")
          .status
        == 200);
  auto other =
    fx.post(schedules, R"({"id":"nightly","workflow":"quick","input":{"n":2},"every":"1h"})");
  CHECK(other.status == 409);
  CHECK(other.error_code() == "idempotency_conflict");

  auto listed = fx.get(schedules);
  REQUIRE(listed.status == 200);
  REQUIRE(listed.json.at("items").as_array().size() == 1);
  CHECK(listed.json.at("items").at(0) == created.json);
  CHECK(fx.get(schedules + "/nightly").json == created.json);
  CHECK(fx.get(schedules + "/missing").status == 404);

  auto replaced =
    fx.put(schedules + "/nightly", R"({"workflow":"quick","input":{"n":3},)"
                                   R"("cron":"30 2 * * *","time_zone":"Europe/Berlin"})");
  INFO(replaced.body);
  REQUIRE(replaced.status == 200);
  CHECK(field_text(replaced, "cron") == "30 2 * * *");
  CHECK(replaced.json.at("every").is_null());
  CHECK(field_text(replaced, "time_zone") == "Europe/Berlin");
  CHECK(replaced.json.at("revision") == 2);
  CHECK(field_text(replaced, "created_at") == field_text(created, "created_at"));
  CHECK(fx.put(schedules + "/nightly",
               R"({"id":"daily","workflow":"quick","input":{},)" + std::string(yearly_cron) + "}")
          .status
        == 400);
  CHECK(fx.put(schedules + "/missing", R"({"workflow":"quick","input":{},"every":"1m"})").status
        == 404);

  auto paused = fx.post(schedules + "/nightly/pause", "");
  REQUIRE(paused.status == 200);
  CHECK(paused.json.at("paused") == true);
  CHECK(paused.json.at("next_fire").is_null());
  auto resumed = fx.post(schedules + "/nightly/resume", "{}");
  REQUIRE(resumed.status == 200);
  CHECK(resumed.json.at("paused") == false);
  CHECK(resumed.json.at("next_fire").is_string());
  CHECK(fx.post(schedules + "/missing/pause", "").status == 404);

  auto deleted = fx.del(schedules + "/nightly");
  REQUIRE(deleted.status == 200);
  CHECK(field_text(deleted, "id") == "nightly");
  CHECK(fx.get(schedules + "/nightly").status == 404);
  CHECK(fx.del(schedules + "/nightly").status == 404);
  CHECK(fx.get(schedules).json.at("items").as_array().empty());
}

TEST_CASE("a trigger starts one operation that names its schedule", "[http][schedules]") {
  http_fixture fx;
  REQUIRE(fx.post(schedules, R"({"id":"yearly","workflow":"quick","input":{"n":1},)"
                               + std::string(yearly_cron) + "}")
            .status
          == 201);
  auto fired = fx.post(schedules + "/yearly/trigger", "");
  INFO(fired.body);
  REQUIRE(fired.status == 202);
  auto id = field_text(fired, "id");
  CHECK(fired.header("Location") == ops + "/" + id);
  CHECK(field_text(fired, "schedule_id") == "yearly");
  CHECK(fired.json.at("parent_id").is_null());
  CHECK(field_text(fired, "workflow") == "quick");
  CHECK(fired.json.at("input") == boost::json::object{{"n", 1}});
  CHECK(fx.finish(id) == "succeeded");
  CHECK(fx.await_event(id, "schedule_fired"));

  auto mine = fx.get(ops + "?schedule=yearly");
  REQUIRE(mine.status == 200);
  REQUIRE(mine.json.at("items").as_array().size() == 1);
  CHECK(mine.json.at("items").at(0).at("id") == id.c_str());
  // An operation started otherwise is not the schedule's.
  fx.start_op("quick");
  CHECK(fx.get(ops + "?schedule=yearly").json.at("items").as_array().size() == 1);
  CHECK(fx.get(ops + "?schedule=other").json.at("items").as_array().empty());
  CHECK(fx.get(ops + "?parent=" + id).json.at("items").as_array().empty());
  CHECK(fx.get(ops + "?schedule=").status == 400);

  auto after = fx.get(schedules + "/yearly");
  CHECK(after.json.at("fired") == 1);
  CHECK(field_text(after, "last_operation") == id);
  CHECK(after.json.at("last_fire").is_string());
  auto metrics = fx.get("/metrics").body;
  CHECK(metrics.find("stepwise_schedule_fires_total{schedule=\"yearly\"} 1\n")
        != std::string::npos);
  CHECK(metrics.find("stepwise_schedule_skips_total{schedule=\"yearly\"} 0\n")
        != std::string::npos);
  CHECK(metrics.find("# TYPE stepwise_schedule_fire_lateness_seconds histogram")
        != std::string::npos);
  CHECK(fx.post(schedules + "/missing/trigger", "").status == 404);
  CHECK(fx.post(schedules + "/yearly/trigger", R"({"now":true})").status == 400);
}

TEST_CASE("a bad schedule is refused with 400 naming the field", "[http][schedules]") {
  http_fixture fx;
  auto with = [](const std::string& fields) {
    return R"({"id":"s","workflow":"quick","input":{},)" + fields + "}";
  };
  struct bad {
    std::string body;
    std::string code;
    std::string says;
  };
  for (auto& b : std::vector<bad>{
         {"{", "malformed_json", "malformed JSON"},
         {"[1]", "invalid_argument", "JSON object"},
         {R"({"workflow":"quick","input":{},"every":"1m"})", "invalid_argument", "'id'"},
         {R"({"id":"a b","workflow":"quick","input":{},"every":"1m"})", "invalid_argument", "id"},
         {with(R"("cron":"* * * * *","every":"1m")"), "invalid_argument", "'cron' and 'every'"},
         {with(R"("time_zone":"UTC")"), "invalid_argument", "'cron'"},
         {with(R"("cron":"61 * * * *")"), "invalid_argument", "cron"},
         {with(R"("cron":"* * * *")"), "invalid_argument", "cron"},
         {with(R"("every":"500ms")"), "invalid_argument", "every"},
         {with(R"("every":"soon")"), "invalid_argument", "'every'"},
         {with(R"("every":"1m","offset":"1m")"), "invalid_argument", "offset"},
         {with(R"("cron":"* * * * *","offset":"1s")"), "invalid_argument", "offset"},
         {with(R"("every":"1m","time_zone":"Mars/Olympus_Mons")"), "invalid_argument", "time_zone"},
         {with(R"("every":"1m","overlap":"sometimes")"), "invalid_argument", "'overlap'"},
         {with(R"("every":"1m","catch_up":"maybe")"), "invalid_argument", "'catch_up'"},
         {with(R"("every":"1m","catch_up_window":"0s")"), "invalid_argument", "catch_up_window"},
         {with(R"("every":"1m","end_at":"soon")"), "invalid_argument", "'end_at'"},
         {with(R"("every":"1m","revision":2)"), "invalid_argument", "'revision'"},
         {R"({"id":"s","workflow":"nope","input":{},"every":"1m"})", "unknown_workflow", "nope"},
         {R"({"id":"s","workflow":"quick","version":9,"input":{},"every":"1m"})",
          "unknown_workflow", "quick"}}) {
    auto r = fx.post(schedules, b.body);
    INFO(b.body << " -> " << r.status << " " << r.body);
    CHECK(r.status == 400);
    CHECK(r.error_code() == b.code);
    CHECK(r.body.find(b.says) != std::string::npos);
  }
  // Nothing was written.
  CHECK(fx.get(schedules).json.at("items").as_array().empty());
}

TEST_CASE("the schedules' routes answer 405 with Allow, 415 and 400 like the others",
          "[http][schedules]") {
  http_fixture fx;
  auto c = fx.client();
  auto patch = to_reply(c->Patch("/api/v1/schedules/x", "{}", "application/json"));
  CHECK(patch.status == 405);
  CHECK(patch.header("Allow") == "GET, HEAD, PUT, DELETE");
  auto whole = fx.del(schedules);
  CHECK(whole.status == 405);
  CHECK(whole.header("Allow") == "POST, GET, HEAD");
  CHECK(fx.put(schedules + "/x", "{}", "text/plain").status == 415);
  CHECK(fx.post(schedules, "{}", "text/plain").status == 415);
  CHECK(fx.get(schedules + "?limit=5").status == 400);
  CHECK(fx.post(schedules + "/x/pause", "[]").status == 400);
  CHECK(fx.get(schedules + "/x/trigger").status == 405);
}
