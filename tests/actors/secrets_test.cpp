// Secret values on the engine: sealed before the store, opened for steps
// (after restarts too), failing only the operations whose key is missing,
// and put under the new key after a rotation.
#include <atomic>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "engine/sealed_json.hpp"
#include "engine/secret_box.hpp"
#include "tests/actors/harness.hpp"
#include "tests/engine/test_keys.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::harness;
using test::key_a;
using test::key_b;
using test::ok;
using test::one;
using test::retries_once;
using test::stored_text;
using test::test_ring;

namespace {

engine_config with_keys(const std::string& text) {
  engine_config ec;
  ec.secret_keys = std::make_shared<const key_ring>(test_ring(text));
  return ec;
}

/// Records in the data whether the step saw the real password (never the
/// password itself: the data is stored).
step_def sees_password(std::string name) {
  return make_step(name, [name](step_context& ctx) {
    auto* pw = ctx.input().at("creds").as_object().if_contains("password");
    ctx.data()[name + "_saw"] = pw != nullptr && *pw == "pw-secret-1";
    return done();
  });
}

/// `w`: checks the password, waits 30 s, checks it again; `/creds` secret.
registry creds_workflow() {
  return one(workflow("w", 1)
               .step(1, sees_password("a"))
               .step(2, retries_once("gate"))
               .step(3, sees_password("b"))
               .secret("/creds"));
}

boost::json::object creds_input() {
  return {{"name", "n1"}, {"creds", {{"user", "ann"}, {"password", "pw-secret-1"}}}};
}

std::string key_of_sealed(const boost::json::value& v) {
  return std::string{secret_box::key_id_of(v.at("$sealed").as_string())};
}

} // namespace

TEST_CASE("secret input is stored sealed and opened for steps, also after a restart",
          "[actors][secrets]") {
  auto st = std::make_shared<memory_store>();
  auto keys = "k1 " + key_a + "\n";
  std::string id;
  {
    harness h{creds_workflow(), st, with_keys(keys)};
    id = h.start("w", creds_input());
    REQUIRE(h.await(id, event_type::step_retry_scheduled));
    auto stored = stored_text(*st, id);
    CHECK(stored.find("pw-secret-1") == std::string::npos);
    CHECK(stored.find("ann") == std::string::npos);
    auto raw = st->load(id);
    REQUIRE(raw);
    CHECK(key_of_sealed((*raw)->input->at("creds")) == "k1");
    CHECK((*raw)->input->at("name") == "n1");
    auto shown = h.eng.get(id);
    REQUIRE(shown);
    CHECK(shown->input->at("creds") == "***");
  }
  harness h{creds_workflow(), st, with_keys(keys)};
  h.clk->advance(30s);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.data.at("a_saw") == true);
  CHECK(op.data.at("b_saw") == true);
  CHECK(stored_text(*st, id).find("pw-secret-1") == std::string::npos);
}

TEST_CASE("a wrong key fails the operations it concerns, naming the key; others go on",
          "[actors][secrets]") {
  auto st = std::make_shared<memory_store>();
  std::string id;
  {
    harness h{creds_workflow(), st, with_keys("k1 " + key_a + "\n")};
    id = h.start("w", creds_input());
    REQUIRE(h.await(id, event_type::step_retry_scheduled));
  }
  std::string plain;
  {
    // Another key under the same id: the file was replaced by mistake.
    harness h{creds_workflow(), st, with_keys("k1 " + key_b + "\n")};
    // Operation ids hold the clock's time: a restarted virtual clock
    // would give the first new operation the id of the first old one.
    h.clk->advance(1s);
    plain = h.start("w", {{"name", "n2"}, {"creds", {{"password", "pw-secret-1"}}}});
    REQUIRE(h.await(plain, event_type::step_retry_scheduled));
    h.clk->advance(30s);
    auto failed = h.finish(id);
    CHECK(failed.state == op_state::failed);
    INFO(failed.error);
    CHECK(failed.error.find("key 'k1'") != std::string::npos);
    CHECK(failed.error.find("not the one it was sealed with") != std::string::npos);
    CHECK(failed.steps[1].attempts == 2);
    CHECK(failed.steps[2].attempts == 0);
    CHECK(!failed.data.contains("b_saw"));
    // Sealed with this engine's key: unaffected.
    INFO("the other operation");
    auto other = h.finish(plain);
    CHECK(other.state == op_state::succeeded);
  }
  // The right key back: a retry carries the failed operation through.
  harness h{creds_workflow(), st, with_keys("k1 " + key_a + "\n")};
  REQUIRE(h.eng.retry(id));
  // A retry starts the step's attempts over: the gate waits once more.
  REQUIRE(h.await(id, event_type::step_retry_scheduled, "gate"));
  h.clk->advance(30s);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.data.at("b_saw") == true);
}

TEST_CASE("a missing key is an error that lists the ring's keys", "[actors][secrets]") {
  auto st = std::make_shared<memory_store>();
  std::string id;
  {
    harness h{creds_workflow(), st, with_keys("old " + key_a + "\n")};
    id = h.start("w", creds_input());
    REQUIRE(h.await(id, event_type::step_retry_scheduled));
  }
  harness h{creds_workflow(), st, with_keys("new " + key_b + "\n")};
  h.clk->advance(30s);
  auto op = h.finish(id);
  CHECK(op.state == op_state::failed);
  INFO(op.error);
  CHECK(op.error.find("key 'old'") != std::string::npos);
  CHECK(op.error.find("it has: new") != std::string::npos);
}

TEST_CASE("a secret a step keeps is stored sealed, masked, and resealed after a rotation",
          "[actors][secrets]") {
  auto keep = make_step("keep", [](step_context& ctx) {
    auto kept = ctx.keep_secret("api_token", "tok-777");
    return kept ? done() : fail(message_of(kept.error()));
  });
  auto use = make_step("use", [](step_context& ctx) {
    auto tok = ctx.secret("api_token");
    if (!tok)
      return fail(message_of(tok.error()));
    ctx.data()["use_saw"] = *tok && **tok == "tok-777";
    // An error quoting the secret reaches nobody.
    return ctx.attempt() == 1 ? retry_after(1s, "token tok-777 refused") : done();
  });
  auto wf = [&] {
    return one(workflow("w", 1).step(1, keep).step(2, retries_once("gate")).step(3, use));
  };
  auto st = std::make_shared<memory_store>();
  std::string id;
  {
    harness h{wf(), st, with_keys("k1 " + key_a + "\n")};
    id = h.start("w");
    REQUIRE(h.await(id, event_type::step_retry_scheduled));
    auto shown = h.eng.get(id);
    REQUIRE(shown);
    CHECK(shown->data.at("api_token") == "***");
    auto raw = st->load(id);
    REQUIRE(raw);
    CHECK(key_of_sealed((*raw)->data.at("api_token")) == "k1");
  }
  // Rotated: a new first key. The actor that resumes the operation seals
  // its data again before writing it back.
  harness h{wf(), st, with_keys("k2 " + key_b + "\nk1 " + key_a + "\n")};
  h.clk->advance(30s);
  REQUIRE(h.await(id, event_type::step_retry_scheduled, "use"));
  h.clk->advance(1s);
  auto op = h.finish(id);
  CHECK(op.state == op_state::succeeded);
  CHECK(op.data.at("use_saw") == true);
  auto raw = st->load(id);
  REQUIRE(raw);
  CHECK(key_of_sealed((*raw)->data.at("api_token")) == "k2");
  auto stored = stored_text(*st, id);
  CHECK(stored.find("tok-777") == std::string::npos);
  CHECK(stored.find("token *** refused") != std::string::npos);
}
