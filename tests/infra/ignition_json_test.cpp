// The Ignition JSON codecs on their own: round trips and the edge cases the
// route tests do not reach.

#include <catch2/catch.hpp>

#include "infra/ignition_json.hpp"

using namespace stepwise;
using namespace stepwise::infra;
namespace json = boost::json;

TEST_CASE("requests round-trip through their JSON", "[http][infra][json]") {
  infra::create_request c;
  c.template_text = "t";
  c.template_type = "TOSCA";
  c.properties = {{"a", "plain strings are accepted"}};
  c.system_properties = {{"resourceName", {{"value", "n"}, {"type", "string"}}}};
  c.location = {"loc", "Kubernetes", {{"token", "x"}}};
  infra::create_request back;
  REQUIRE_FALSE(decode_create_request(encode(c), back));
  CHECK(json::value(encode(back)) == json::value(encode(c)));

  task_query q{"i", "r", {"loc", "", {}}};
  task_query qb;
  REQUIRE_FALSE(decode_task_query(encode(q), qb));
  CHECK(qb.infrastructure_id == "i");
  CHECK(qb.request_id == "r");
  CHECK(qb.location.name == "loc");
}

TEST_CASE("unknown fields are ignored and null optionals read as absent", "[http][infra][json]") {
  find_request f;
  auto err = decode_find_request(
    json::parse(R"({"template":"t","templateType":"T","instanceName":null,)"
                R"("deploymentLocation":{"name":"l","type":null,"properties":null,"extra":1},)"
                R"("brentOnly":{"x":1}})"),
    f);
  CHECK_FALSE(err);
  CHECK(f.instance_name.empty());
  CHECK(f.location.type.empty());
  CHECK(f.location.properties.empty());
}

TEST_CASE("tasks encode failureDetails only when failed", "[http][infra][json]") {
  infra::task t{"i", "r", infra::task_status::complete, std::nullopt, {{"o", 1}}};
  CHECK_FALSE(encode(t).contains("failureDetails"));
  t.status = infra::task_status::failed;
  auto o = encode(t);
  CHECK(o.at("failureDetails").at("failureCode") == "INTERNAL_ERROR");
  infra::task back;
  REQUIRE_FALSE(decode_task(o, back));
  CHECK(back.status == infra::task_status::failed);
  REQUIRE(back.failure);
  CHECK(back.failure->code == infra::failure_code::internal_error);
  CHECK(back.outputs.at("o") == 1);
  auto bad = json::parse(R"({"status":"FAILED","failureDetails":{"failureCode":"OOPS"}})");
  auto err = decode_task(bad, back);
  REQUIRE(err);
  CHECK_THAT(*err, Catch::Contains("failureDetails.failureCode"));
}

TEST_CASE("find results: null, absent and {} are none", "[http][infra][json]") {
  for (auto text : {R"({"result":null})", "{}", R"({"result":{}})"}) {
    std::optional<infra::found> f{infra::found{}};
    REQUIRE_FALSE(decode_found(json::parse(text), f));
    CHECK_FALSE(f);
  }
  CHECK(json::serialize(encode(std::optional<infra::found>{})) == R"({"result":null})");
  std::optional<infra::found> f;
  auto err = decode_found(json::parse(R"({"result":{"outputs":{}}})"), f);
  REQUIRE(err);
  CHECK_THAT(*err, Catch::Contains("'result.infrastructureId'"));
}

TEST_CASE("errors are {localizedMessage, status}", "[http][infra][json]") {
  CHECK(json::serialize(encode_error("nope", 400))
        == R"({"localizedMessage":"nope","status":400})");
}
