#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "storage/codec.hpp"

using namespace stepwise;

namespace {

constexpr auto store_failure = errc::store_failure;
constexpr auto invalid_argument = errc::invalid_argument;

} // namespace

TEST_CASE("steps round-trip through their JSON text", "[storage][codec]") {
  std::vector<step_record> steps{
    {"allocate", 10, step_state::succeeded, 2, from_micros(1), from_micros(-2), std::nullopt, 77,
     "timeout ⏱ \"quoted\""},
    {"boot", 20, step_state::waiting, 1, std::nullopt, std::nullopt,
     from_micros(1'795'333'200'123'456), 0, ""},
    {"", 0, step_state::incomplete, 0, std::nullopt, std::nullopt, std::nullopt, 0, ""},
    {"image", 5, step_state::succeeded, 1, std::nullopt, std::nullopt, from_micros(9), 0, "busy",
     step_state::waiting, 3},
  };
  auto text = codec::encode_steps(steps);
  // Compact: no whitespace between tokens.
  CHECK(text.find("\": ") == std::string::npos);
  CHECK(text.find(", ") == std::string::npos);
  CHECK(text.find("\"na\":1795333200123456") != std::string::npos);
  auto back = codec::decode_steps(text);
  REQUIRE(back);
  REQUIRE(back->size() == steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    INFO("step " << i);
    auto& g = (*back)[i];
    auto& w = steps[i];
    CHECK(g.name == w.name);
    CHECK(g.weight == w.weight);
    CHECK(g.state == w.state);
    CHECK(g.attempts == w.attempts);
    CHECK(g.first_attempt_at == w.first_attempt_at);
    CHECK(g.last_attempt_at == w.last_attempt_at);
    CHECK(g.next_attempt_at == w.next_attempt_at);
    CHECK(g.duration_ms == w.duration_ms);
    CHECK(g.last_error == w.last_error);
    CHECK(g.compensation == w.compensation);
    CHECK(g.compensation_attempts == w.compensation_attempts);
  }
  // A step that never compensated stores no compensation members.
  CHECK(codec::encode_steps({steps[0]}).find("\"c") == std::string::npos);
  CHECK(codec::encode_steps({}) == "[]");
  auto none = codec::decode_steps("[]");
  REQUIRE(none);
  CHECK(none->empty());
}

TEST_CASE("stored JSON is always valid UTF-8", "[storage][codec]") {
  // A step error taken from a driver's bytes must not poison the row.
  std::vector<step_record> steps(1);
  steps[0].name = "ok ✓";
  steps[0].last_error = std::string{"bad \xFF\xC0\x80 \xED\xA0\x80 end\x01"};
  auto text = codec::encode_steps(steps);
  boost::json::parse_options strict; // rejects invalid UTF-8
  boost::json::error_code ec;
  boost::json::parse(text, ec, {}, strict);
  CHECK_FALSE(ec);
  auto back = codec::decode_steps(text);
  REQUIRE(back);
  CHECK((*back)[0].name == "ok ✓");
  CHECK((*back)[0].last_error == "bad \uFFFD\uFFFD\uFFFD \uFFFD\uFFFD\uFFFD end\x01");
  boost::json::object obj{{"s", std::string{"\xFFx\"\\\n"}}, {std::string{"k\xFE"}, 1}};
  auto obj_text = codec::encode_object(obj);
  boost::json::parse(obj_text, ec, {}, strict);
  CHECK_FALSE(ec);
  auto obj_back = codec::decode_object(obj_text, "data");
  REQUIRE(obj_back);
  CHECK(obj_back->at("s") == "\uFFFDx\"\\\n");
  CHECK(obj_back->contains("k\uFFFD"));
}

TEST_CASE("stored JSON keeps every value and its type", "[storage][codec]") {
  auto obj = boost::json::parse(R"({
    "d": 3.0, "e": 1e300, "f": -0.5, "i": -9223372036854775808,
    "u": 18446744073709551615, "b": [true, false, null], "s": "\u0000\t",
    "deep": [[[[[[[[[[{"x": {}}]]]]]]]]]], "": ""
  })")
               .as_object();
  auto back = codec::decode_object(codec::encode_object(obj), "data");
  REQUIRE(back);
  CHECK(*back == obj);
  CHECK(back->at("d").is_double());
  CHECK(back->at("u").is_uint64());
  CHECK(back->at("s").as_string().size() == 2);
}

TEST_CASE("damaged step text is a store failure", "[storage][codec]") {
  for (std::string bad :
       {"", "[", "{}", "[1]", R"([{"name": 5}])", R"([{"name": "a", "state": "sleepy"}])",
        R"([{"name": "a", "state": "pending", "weight": "x"}])",
        R"([{"name": "a", "state": "pending", "attempts": 1.5}])"}) {
    INFO(bad);
    auto res = codec::decode_steps(bad);
    REQUIRE_FALSE(res);
    CHECK(code_of(res.error()) == store_failure);
  }
}

TEST_CASE("objects round-trip and non-objects are refused", "[storage][codec]") {
  auto obj = boost::json::parse(R"({"a": [1, 2.5, null], "ü": {"x": "✓"}})").as_object();
  auto back = codec::decode_object(codec::encode_object(obj), "data");
  REQUIRE(back);
  CHECK(*back == obj);
  for (std::string bad : {"", "[]", "1", "\"s\"", "{", "{\"a\":}"}) {
    INFO(bad);
    auto res = codec::decode_object(bad, "operation data");
    REQUIRE_FALSE(res);
    CHECK(code_of(res.error()) == store_failure);
    CHECK(message_of(res.error()).find("operation data") != std::string::npos);
  }
}

TEST_CASE("cursors round-trip and malformed cursors are refused", "[storage][codec]") {
  for (auto id : {"op-1", "a:b:c", "ü ✓ /?&=", "x"}) {
    for (int64_t us : {int64_t{0}, int64_t{1'795'333'200'123'456}, int64_t{-5}}) {
      INFO(id << " @ " << us);
      auto text = codec::encode_cursor({from_micros(us), id});
      // URL-safe: it travels in a query parameter.
      CHECK(text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
                                   "opqrstuvwxyz0123456789-_")
            == std::string::npos);
      auto back = codec::decode_cursor(text);
      REQUIRE(back);
      CHECK(to_micros(back->created_at) == us);
      CHECK(back->id == id);
    }
  }
  // Base64url texts of chosen payloads (the decoded payload in comments).
  for (std::string bad : {"", "!", "a", "====", "MTIz", /* "123" */
                          "Omlk",                       /* ":id" */
                          "MTJ4Omlk",                   /* "12x:id" */
                          "MTI6",                       /* "12:" */
                          "MTI6aW", /* not canonical */ "MTI6aWQ="}) {
    INFO("'" << bad << "'");
    auto res = codec::decode_cursor(bad);
    REQUIRE_FALSE(res);
    CHECK(code_of(res.error()) == invalid_argument);
  }
}
