// Bearer tokens in front of every route but the open ones: missing and
// wrong tokens are 401, read tokens on write routes 403, in each API's
// error shape; token files are checked and read again.

#include <fstream>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "http/auth.hpp"
#include "tests/http/fake_driver.hpp"
#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

constexpr const char* writer = "writer-token-0123456789";
constexpr const char* reader = "reader-token-0123456789";

std::string write_tokens(const std::string& dir, const std::string& text) {
  auto path = dir + "/tokens";
  std::ofstream(path) << text;
  return path;
}

// A fixture whose server asks for the tokens of `dir`.
http::server_config with_tokens(const std::string& dir, bool metrics_auth = false) {
  // The reader's token is given as its SHA-256, as an operator would.
  auto hashed = http::sha256(reader);
  std::string hex;
  for (auto b : hashed) {
    char buf[3];
    std::snprintf(buf, sizeof(buf), "%02x", b);
    hex += buf;
  }
  auto path = write_tokens(dir, std::string("# who may do what\nwrite ci ") + writer
                                  + "\nread dashboards sha256:" + hex + "  # hashed\n");
  auto auth = http::authenticator::open(path);
  REQUIRE(auth);
  auto cfg = http_fixture::default_config();
  cfg.auth = *auth;
  cfg.metrics_auth = metrics_auth;
  return cfg;
}

reply call(const http_fixture& fx, const std::string& method, const std::string& target,
           const char* token, const std::string& body = "") {
  auto c = fx.client();
  httplib::Headers hs;
  if (token != nullptr)
    hs.emplace("Authorization", std::string("Bearer ") + token);
  if (method == "GET")
    return to_reply(c->Get(target, hs));
  if (method == "PUT")
    return to_reply(c->Put(target, hs, body, "application/json"));
  if (method == "DELETE")
    return to_reply(c->Delete(target, hs));
  return to_reply(c->Post(target, hs, body, "application/json"));
}

} // namespace

TEST_CASE("routes ask for a token by method and path", "[http][auth]") {
  using http::access;
  using http::access_for;
  CHECK(access_for("GET", "/healthz", false) == access::open);
  CHECK(access_for("GET", "/readyz", true) == access::open);
  CHECK(access_for("GET", "/metrics", false) == access::open);
  CHECK(access_for("GET", "/metrics", true) == access::read);
  CHECK(access_for("GET", "/ui/{asset}", false) == access::open);
  CHECK(access_for("GET", "/", false) == access::open);
  CHECK(access_for("GET", "/api/v1/operations", false) == access::read);
  CHECK(access_for("HEAD", "/api/v1/events/stream", false) == access::read);
  CHECK(access_for("POST", "/api/v1/operations", false) == access::write);
  CHECK(access_for("POST", "/api/infrastructure/query", false) == access::write);
  CHECK(access_for("PUT", "/v2/service_instances/{instance_id}", false) == access::broker);
}

TEST_CASE("missing, wrong and read-only tokens are refused", "[http][auth]") {
  temp_dir dir;
  http_fixture fx{with_tokens(dir.path), std::make_shared<fake_driver>()};
  auto start = R"({"workflow":"quick","input":{}})";
  SECTION("no token: 401 with a Bearer challenge") {
    auto r = call(fx, "GET", "/api/v1/operations", nullptr);
    CHECK(r.status == 401);
    CHECK(r.error_code() == "unauthorized");
    CHECK(r.header("WWW-Authenticate") == "Bearer realm=\"stepwise\"");
    CHECK(call(fx, "POST", "/api/v1/operations", nullptr, start).status == 401);
    CHECK(call(fx, "GET", "/api/v1/events/stream", nullptr).status == 401);
  }
  SECTION("a wrong token, or another scheme: 401, never echoed") {
    auto r = call(fx, "GET", "/api/v1/operations", "writer-token-012345678X");
    CHECK(r.status == 401);
    CHECK(r.header("WWW-Authenticate") == "Bearer realm=\"stepwise\"");
    CHECK(r.body.find("writer-token") == std::string::npos);
    // A prefix of a valid token is no token.
    CHECK(call(fx, "GET", "/api/v1/operations", "writer-token").status == 401);
    auto c = fx.client();
    auto basic = to_reply(c->Get("/api/v1/operations", {{"Authorization", "Basic d3JpdGVyOng="}}));
    CHECK(basic.status == 401);
    CHECK(basic.error_code() == "unauthorized");
  }
  SECTION("a read token reads, and is 403 on a write route") {
    CHECK(call(fx, "GET", "/api/v1/operations", reader).status == 200);
    CHECK(call(fx, "GET", "/api/v1/workflows", reader).status == 200);
    auto r = call(fx, "POST", "/api/v1/operations", reader, start);
    CHECK(r.status == 403);
    CHECK(r.error_code() == "forbidden");
    CHECK(r.json.at("error").at("message").as_string().find("write token") != std::string::npos);
    CHECK(r.header("WWW-Authenticate").empty());
    CHECK(call(fx, "GET", "/api/v1/operations", reader).json.at("items").as_array().empty());
  }
  SECTION("a read token reads schedules and may not change them") {
    auto schedule = R"({"id":"s","workflow":"quick","input":{},"every":"1h"})";
    REQUIRE(call(fx, "POST", "/api/v1/schedules", writer, schedule).status == 201);
    CHECK(call(fx, "GET", "/api/v1/schedules", reader).status == 200);
    CHECK(call(fx, "GET", "/api/v1/schedules/s", reader).status == 200);
    CHECK(call(fx, "POST", "/api/v1/schedules", reader, schedule).status == 403);
    CHECK(call(fx, "PUT", "/api/v1/schedules/s", reader, schedule).status == 403);
    CHECK(call(fx, "DELETE", "/api/v1/schedules/s", reader).status == 403);
    for (auto verb : {"pause", "resume", "trigger"})
      CHECK(call(fx, "POST", std::string("/api/v1/schedules/s/") + verb, reader).status == 403);
    CHECK(call(fx, "GET", "/api/v1/schedules", nullptr).status == 401);
    CHECK(call(fx, "GET", "/api/v1/schedules/s", writer).json.at("revision") == 1);
  }
  SECTION("a write token does everything") {
    auto r = call(fx, "POST", "/api/v1/operations", writer, start);
    CHECK(r.status == 201);
    CHECK(call(fx, "GET", "/api/v1/operations/" + std::string(r.json.at("id").as_string()), writer)
            .status
          == 200);
  }
  SECTION("probes, metrics and the console are open") {
    CHECK(call(fx, "GET", "/healthz", nullptr).status == 200);
    CHECK(call(fx, "GET", "/metrics", nullptr).status == 200);
    CHECK(call(fx, "GET", "/ui/", nullptr).status == 200);
    CHECK(call(fx, "GET", "/ui/app.js", nullptr).status == 200);
    CHECK(call(fx, "GET", "/", nullptr).status == 302);
  }
  SECTION("the Infrastructure API refuses in its own error shape") {
    auto body = R"({"deploymentLocation":{"name":"l"},"template":"t","templateType":"T"})";
    auto r = call(fx, "POST", "/api/infrastructure/create", nullptr, body);
    CHECK(r.status == 401);
    CHECK(r.json.at("status") == 401);
    CHECK(r.json.at("localizedMessage").is_string());
    CHECK(r.header("WWW-Authenticate") == "Bearer realm=\"stepwise\"");
    auto ro = call(fx, "POST", "/api/infrastructure/create", reader, body);
    CHECK(ro.status == 403);
    CHECK(ro.json.at("status") == 403);
  }
  SECTION("an unknown path stays 404, a refused body is not read") {
    CHECK(call(fx, "GET", "/api/v1/nothing", nullptr).status == 404);
    auto r = call(fx, "POST", "/api/v1/operations", nullptr, std::string(100000, ' '));
    CHECK(r.status == 401);
    CHECK(r.header("Connection") == "close");
  }
}

TEST_CASE("--metrics-auth puts /metrics behind a read token", "[http][auth]") {
  temp_dir dir;
  http_fixture fx{with_tokens(dir.path, true)};
  CHECK(call(fx, "GET", "/metrics", nullptr).status == 401);
  CHECK(call(fx, "GET", "/metrics", reader).status == 200);
  CHECK(call(fx, "GET", "/readyz", nullptr).status / 100 != 4);
}

TEST_CASE("token files: lines are checked and never quoted", "[http][auth]") {
  auto msg = [](const std::string& text) {
    auto set = http::token_set::parse(text, "tokens");
    REQUIRE_FALSE(set);
    return message_of(set.error());
  };
  CHECK(msg("write ci\n").find("tokens:1") != std::string::npos);
  CHECK(msg("# c\nadmin ci s3cret-s3cret-s3cret\n").find("tokens:2: the role")
        != std::string::npos);
  CHECK(msg("write ci short-secret\n").find("shorter than 16") != std::string::npos);
  CHECK(msg("write ci short-secret\n").find("short-secret") == std::string::npos);
  CHECK(msg("read ci sha256:abc\n").find("64 hex digits") != std::string::npos);
  CHECK(msg("write a aaaaaaaaaaaaaaaaaaaaa\nread b aaaaaaaaaaaaaaaaaaaaa\n").find("same token as a")
        != std::string::npos);
  CHECK(msg("write a aaaaaaaaaaaaaaaaaaaaa\nread a bbbbbbbbbbbbbbbbbbbbbb\n").find("used twice")
        != std::string::npos);
  CHECK(msg("write a one two three four\n").find("aaaa") == std::string::npos);
  auto ok = http::token_set::parse("\n# nothing but\n  write ci aaaaaaaaaaaaaaaaaaaaa # x\n", "t");
  REQUIRE(ok);
  CHECK(ok->size() == 1);
  auto hit = ok->match("aaaaaaaaaaaaaaaaaaaaa");
  REQUIRE(hit != nullptr);
  CHECK(hit->name == "ci");
  CHECK(hit->what == http::role::write);
  CHECK(ok->match("aaaaaaaaaaaaaaaaaaaab") == nullptr);
  CHECK(ok->match("") == nullptr);
}

TEST_CASE("tokens are compared as SHA-256 digests in constant time", "[http][auth]") {
  // Equal digests for equal texts; any difference, wherever it is, is
  // found by the same full compare (CRYPTO_memcmp over all 32 bytes).
  auto a = http::sha256("token-a-0123456789");
  CHECK(http::digests_equal(a, http::sha256("token-a-0123456789")));
  auto first = a;
  first[0] ^= 1;
  auto last = a;
  last[31] ^= 0x80;
  CHECK_FALSE(http::digests_equal(a, first));
  CHECK_FALSE(http::digests_equal(a, last));
  CHECK(http::digest_from_hex(std::string(64, 'f')).has_value());
  CHECK_FALSE(http::digest_from_hex(std::string(63, 'f')).has_value());
  CHECK_FALSE(http::digest_from_hex(std::string(63, 'f') + "g").has_value());
  CHECK(http::base64_decode("cGxhdGZvcm06cHc=") == std::optional<std::string>("platform:pw"));
  CHECK_FALSE(http::base64_decode("cGxhdGZvcm06cHc").has_value());
  CHECK(http::base64_decode("") == std::optional<std::string>(""));
  CHECK(http::base64_decode("YQ==") == std::optional<std::string>("a"));
  CHECK_FALSE(http::base64_decode("c!==").has_value());
}

TEST_CASE("a reload swaps the tokens; a broken file keeps them", "[http][auth]") {
  temp_dir dir;
  auto path = write_tokens(dir.path, std::string("write ci ") + writer + "\n");
  auto auth = http::authenticator::open(path);
  REQUIRE(auth);
  auto bearer = [](const char* t) { return std::string("Bearer ") + t; };
  CHECK_FALSE((*auth)->check(http::access::write, bearer(writer)));
  write_tokens(dir.path, std::string("read ci ") + reader + "\n");
  REQUIRE((*auth)->reload());
  CHECK((*auth)->check(http::access::read, bearer(writer))->status == 401);
  CHECK_FALSE((*auth)->check(http::access::read, bearer(reader)));
  CHECK((*auth)->check(http::access::write, bearer(reader))->status == 403);
  write_tokens(dir.path, "write ci tooshort\n");
  auto failed = (*auth)->reload();
  REQUIRE_FALSE(failed);
  CHECK(message_of(failed.error()).find("tooshort") == std::string::npos);
  CHECK_FALSE((*auth)->check(http::access::read, bearer(reader)));
  write_tokens(dir.path, "# no token at all\n");
  CHECK_FALSE((*auth)->reload());
  CHECK_FALSE(http::authenticator::open(dir.path + "/missing"));
}
