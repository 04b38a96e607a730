// engine/redact: secret values masked by path and scrubbed from text.
#include <catch2/catch.hpp>

#include "engine/redact.hpp"
#include "tests/engine/engine_fixtures.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::t0;

TEST_CASE("secrets are masked by path and scrubbed from text", "[engine]") {
  boost::json::object in{{"a", {{"pw", "s3cret"}}}, {"b", 1}};
  auto masked = mask_paths(in, {"/a/pw", "/missing"});
  CHECK(masked.at("a").at("pw") == "***");
  CHECK(masked.at("b") == 1);
  transient_map tr{{"tok", {boost::json::value("t0k"), true}},
                   {"pub", {boost::json::value("open"), false}}};
  auto secrets = secret_strings(in, {"/a/pw"}, tr);
  CHECK(scrub("s3cret and t0k and open", secrets) == "*** and *** and open");
}
