// Provisioning overrides: steps add them, provision_runtime
// hands every one to the driver's create request, nothing stores them, and
// a restart before the create collects them again.
#include <atomic>
#include <memory>

#include <catch2/catch.hpp>

#include "workflows/overrides.hpp"
#include "tests/infra/workflow_setup.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

using test::provision_input;

namespace {

constexpr const char* lms_token = "lms-t0ken-s3cret";

/// The deployment's steps: one fetches an LMS tenant and its token (secret),
/// one a monitoring URL. Each counts its runs.
struct fetchers {
  std::shared_ptr<std::atomic<int>> lms = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<int>> avs = std::make_shared<std::atomic<int>>(0);

  std::vector<workflows::provisioning_step> steps() const {
    auto lms_runs = lms;
    auto avs_runs = avs;
    return {
      {12, make_step("lms_tenant",
                     [lms_runs](step_context& ctx) {
                       ++*lms_runs;
                       ctx.add_override("lms", "tenant_id", "t-42");
                       ctx.add_override("lms", "token", lms_token, true);
                       return done();
                     })},
      {14, make_step("avs_evaluation",
                     [avs_runs](step_context& ctx) {
                       ++*avs_runs;
                       ctx.add_override("monitoring", "avs.url", "https://avs.example/e/7");
                       return done();
                     })},
    };
  }
};

boost::json::object with_input_overrides() {
  auto in = provision_input();
  in["overrides"] = {{"core", {{"global.domainName", "rt1.example.org"}}}};
  return in;
}

boost::json::object prop(const char* value, bool secret = false) {
  boost::json::object out{{"value", value}, {"type", "string"}};
  if (secret)
    out["secret"] = true;
  return out;
}

/// The create request's properties that carry overrides, as the driver
/// received them.
boost::json::object received_overrides(const test::workflow_setup& s, const operation& op) {
  auto req = s.drv->received_create(test::infra_id(op, "infrastructure"));
  REQUIRE(req);
  boost::json::object out;
  for (auto& kv : req->properties)
    if (std::string{kv.key()}.rfind("overrides/", 0) == 0)
      out[kv.key()] = kv.value();
  return out;
}

const boost::json::object all_overrides{
  {"overrides/core/global.domainName", prop("rt1.example.org")},
  {"overrides/lms/tenant_id", prop("t-42")},
  {"overrides/lms/token", prop(lms_token, true)},
  {"overrides/monitoring/avs.url", prop("https://avs.example/e/7")},
};

} // namespace

TEST_CASE("the create request carries every override", "[infra][workflows][overrides]") {
  fetchers f;
  test::workflow_setup s{nullptr, f.steps()};
  auto op = s.drive(s.h->start("provision_runtime", with_input_overrides()));
  REQUIRE(op.state == op_state::succeeded);
  CHECK(received_overrides(s, op) == all_overrides);
  // The deployment's steps run between validate and the create.
  REQUIRE(op.steps.size() == 6);
  CHECK(op.steps[1].name == "lms_tenant");
  CHECK(op.steps[2].name == "avs_evaluation");
  CHECK(op.steps[3].name == "create_infrastructure");
  CHECK(*f.lms == 1);
  // The secret is nowhere stored, nor in what the API shows.
  CHECK(test::stored_text(*s.st, op.id).find(lms_token) == std::string::npos);
  auto shown = s.h->eng.get(op.id);
  REQUIRE(shown);
  CHECK(boost::json::serialize(*shown->input).find(lms_token) == std::string::npos);
  CHECK(boost::json::serialize(shown->data).find(lms_token) == std::string::npos);
}

TEST_CASE("a restart before the create collects the overrides again",
          "[infra][workflows][overrides]") {
  fetchers f;
  test::workflow_setup s{nullptr, f.steps()};
  // The first create is refused for now: the step waits for its retry.
  s.drv->inject(infra::error_kind::temporary, 1);
  auto id = s.h->start("provision_runtime", with_input_overrides());
  REQUIRE(s.h->await(id, event_type::step_retry_scheduled, "create_infrastructure"));
  CHECK(*f.lms == 1);
  CHECK(s.drv->creates() == 0);
  s.restart();
  auto op = s.drive(id);
  REQUIRE(op.state == op_state::succeeded);
  // Both steps ran again before the create's second attempt, which had
  // every override.
  CHECK(*f.lms == 2);
  CHECK(*f.avs == 2);
  CHECK(op.steps[3].attempts == 2);
  CHECK(received_overrides(s, op) == all_overrides);
  CHECK(s.drv->creates() == 1);
  CHECK(test::stored_text(*s.st, id).find(lms_token) == std::string::npos);
}

TEST_CASE("provision_runtime refuses malformed input overrides", "[infra][workflows][overrides]") {
  test::workflow_setup s;
  auto in = provision_input();
  in["overrides"] = {{"core", {{"replicas", 3}}}};
  auto op = s.drive(s.h->start("provision_runtime", in));
  CHECK(op.state == op_state::failed);
  CHECK(op.error.find("\"overrides\"") != std::string::npos);
  CHECK(s.drv->creates() == 0);
}

TEST_CASE("override properties name component and key", "[infra][workflows][overrides]") {
  boost::json::object props{{"overrides/core/a", prop("from input")}, {"size", "m"}};
  workflows::add_override_properties(
    props, {{"core", "a", "from a step", false}, {"lms", "token", "x", true}});
  CHECK(props.at("size") == "m");
  CHECK(props.at("overrides/core/a") == prop("from a step"));
  CHECK(props.at("overrides/lms/token") == prop("x", true));
  auto in = workflows::input_overrides(
    {{"overrides", {{"b", {{"k2", "v2"}, {"k1", "v1"}}}, {"a", {{"k", "v"}}}}}});
  REQUIRE(in.size() == 3);
  CHECK(in[0].component == "a");
  CHECK_FALSE(in[0].secret);
  CHECK(!workflows::check_input_overrides({{"overrides", {{"c", {{"k", "v"}}}}}}));
  CHECK(workflows::check_input_overrides({{"overrides", "x"}}));
  CHECK(workflows::check_input_overrides({{"overrides", {{"c", "v"}}}}));
}
