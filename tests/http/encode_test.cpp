#include <catch2/catch.hpp>

#include "http/encode.hpp"
#include "engine/event_json.hpp"

using namespace stepwise;

TEST_CASE("the streamed form of an event is its API form", "[http][encode]") {
  event plain;
  plain.seq = 42;
  plain.time = from_micros(1'795'333'200'123'456);
  plain.operation_id = "op-1";
  plain.type = event_type::operation_created;
  event full = plain;
  full.type = event_type::step_retry_scheduled;
  full.step = "boot \"vm\"";
  full.attempt = 3;
  full.state = "waiting";
  full.error = "line\nbreak \xE2\x8F\xB1 and \x01 control";
  full.by = "ci \"bot\"";
  event extra = plain;
  extra.type = event_type::infrastructure_task_completed;
  extra.extra = {{"request_id", "r-1"},
                 {"outputs", {{"ip", "10.0.0.1"}, {"n", 3}}},
                 {"failure_details", nullptr},
                 // A standard field cannot be shadowed by an extra one.
                 {"seq", 7},
                 {"type", "forged"},
                 {"by", "forged"}};
  for (auto* e : {&plain, &full, &extra}) {
    std::string text;
    append_event_json(text, *e);
    boost::json::error_code ec;
    auto parsed = boost::json::parse(text, ec);
    INFO(text);
    REQUIRE_FALSE(ec);
    CHECK(parsed == boost::json::value(http::to_json(*e)));
  }
  std::string text;
  append_event_json(text, extra);
  CHECK(boost::json::parse(text).at("seq") == 42);
  CHECK(boost::json::parse(text).at("type") == "infrastructure_task_completed");
}

TEST_CASE("the API form of an operation is written as text with every field", "[http][encode]") {
  operation op;
  op.id = "op-1";
  op.workflow = "provision_runtime";
  op.workflow_version = 3;
  op.state = op_state::waiting;
  op.input = std::make_shared<const boost::json::object>(boost::json::object{{"name", "rt \"1\""}});
  op.data = {{"handle", "h-1"}, {"n", 2}};
  op.error = "driver said \xff no"; // not UTF-8: written as U+FFFD
  op.created_at = parse_time("2026-11-27T10:00:00.123Z").value();
  op.updated_at = parse_time("2026-11-27T10:00:01Z").value();
  op.steps.push_back(
    {"allocate", 10, step_state::succeeded, 1, op.created_at, op.created_at, std::nullopt, 4, ""});
  op.steps.push_back(
    {"wait", 5, step_state::pending, 2, std::nullopt, std::nullopt, op.updated_at, 0, "boom"});
  op.steps.back().compensation = step_state::failed;
  op.signals.push_back({"approve", "sig-1", nullptr, op.updated_at, "wait"});
  op.key = "rt-1";
  op.pause_requested = true;
  op.schedule_id = "nightly";
  boost::json::object children{{"succeeded", 2}};
  auto text = http::operation_text(op, &children);
  auto parsed = boost::json::parse(text).as_object();
  std::vector<std::string> keys;
  for (auto& kv : parsed)
    keys.emplace_back(kv.key());
  CHECK(keys
        == std::vector<std::string>{
          "id",     "workflow",   "version",         "state",     "input",       "data",
          "error",  "created_at", "updated_at",      "deadline",  "steps",       "signals",
          "key",    "blocked_by", "pause_requested", "parent_id", "schedule_id", "idempotency_key",
          "labels", "owner",      "children"});
  CHECK(parsed["version"] == 3);
  CHECK(parsed["state"] == "waiting");
  CHECK(parsed["input"].at("name") == "rt \"1\"");
  CHECK(parsed["data"] == boost::json::value(op.data));
  CHECK(parsed["error"] == "driver said \xef\xbf\xbd no");
  CHECK(parsed["created_at"] == "2026-11-27T10:00:00.123Z");
  CHECK(parsed["deadline"].is_null());
  auto& first = parsed["steps"].at(0).as_object();
  CHECK(first.at("name") == "allocate");
  CHECK(first.at("attempts") == 1);
  CHECK(first.at("first_attempt_at") == "2026-11-27T10:00:00.123Z");
  CHECK(first.at("next_attempt_at").is_null());
  CHECK(first.at("duration_ms") == 4);
  CHECK(first.at("last_error").is_null());
  CHECK(first.at("compensation").is_null());
  auto& second = parsed["steps"].at(1).as_object();
  CHECK(second.at("next_attempt_at") == "2026-11-27T10:00:01.000Z");
  CHECK(second.at("last_error") == "boom");
  CHECK(second.at("compensation") == "failed");
  auto& sig = parsed["signals"].at(0).as_object();
  CHECK(sig.at("signal_id") == "sig-1");
  CHECK(sig.at("received_at") == "2026-11-27T10:00:01.000Z");
  CHECK(sig.at("consumed_by") == "wait");
  CHECK(parsed["key"] == "rt-1");
  CHECK(parsed["blocked_by"].is_null());
  CHECK(parsed["pause_requested"] == true);
  CHECK(parsed["parent_id"].is_null());
  CHECK(parsed["schedule_id"] == "nightly");
  CHECK(parsed["children"].at("succeeded") == 2);
  CHECK(boost::json::value(http::to_json(op)) == boost::json::parse(http::operation_text(op)));
  CHECK_FALSE(http::to_json(op).contains("children"));
}
