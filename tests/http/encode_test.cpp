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
  event extra = plain;
  extra.type = event_type::infrastructure_task_completed;
  extra.extra = {{"request_id", "r-1"},
                 {"outputs", {{"ip", "10.0.0.1"}, {"n", 3}}},
                 {"failure_details", nullptr},
                 // A standard field cannot be shadowed by an extra one.
                 {"seq", 7},
                 {"type", "forged"}};
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
