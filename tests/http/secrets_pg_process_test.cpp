// Secrets encrypted at rest, on the real binary and PostgreSQL: no key, no
// start (the message says how to make one); with a key, a pg_dump of the
// database holds no secret value, and after `stepwise secrets rotate` no
// value under the old key. Skips without STEPWISE_TEST_PG_URI.
#include <signal.h>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"
#include "tests/http/secrets_support.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

const std::string pg_secret = "pg-pw-Qz42-never-stored";

/// Returns a plain-text dump of the schema's tables and rows.
std::string dump(const pg_test_schema& schema) {
  auto base = pg_test_uri();
  REQUIRE(base);
  auto out = run_status("/usr/lib/postgresql/15/bin/pg_dump --no-owner --schema=" + schema.name()
                        + " '" + *base + "'");
  REQUIRE(out.find("exit=0") != std::string::npos);
  return out;
}

} // namespace

TEST_CASE("serve on PostgreSQL without a key refuses to start and says how to make one",
          "[http][process][secrets][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto out =
    run_status(stepwise_binary() + " serve --listen 127.0.0.1:0 --store '" + schema->uri() + "'");
  INFO(out);
  CHECK(out.find("exit=2") != std::string::npos);
  CHECK(out.find("needs a key") != std::string::npos);
  CHECK(out.find("openssl rand -base64 32") != std::string::npos);
  CHECK(out.find("--secret-key-file") != std::string::npos);
  CHECK(out.find("--insecure-plaintext-secrets") != std::string::npos);
}

TEST_CASE("a pg_dump holds no secret value, and none under a rotated-out key",
          "[http][process][secrets][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  temp_dir dir;
  auto keys = dir.path + "/keys";
  auto old_line = new_key_line("old");
  write_private(keys, old_line);
  auto flags = std::vector<std::string>{"--store", schema->uri(), "--secret-key-file", keys};
  ignition_stub stub;
  stub.answer(202, task_done);
  std::string id;
  {
    secrets_server srv(stub, flags);
    id = srv.start("provision_runtime", provision_input("rt1", pg_secret));
    CHECK(srv.finish(id).at("state") == "succeeded");
    auto sent = passwords_sent(stub);
    REQUIRE(!sent.empty());
    CHECK(sent == std::vector<std::string>(sent.size(), pg_secret));
    CHECK(srv.stop(SIGTERM) == 0);
  }
  auto before = dump(*schema);
  CHECK(before.find(id) != std::string::npos);
  CHECK(before.find(pg_secret) == std::string::npos);
  CHECK(before.find("1:old:") != std::string::npos);
  write_private(keys, new_key_line("new") + old_line);
  secrets_server srv(stub, flags);
  auto out = run_status(stepwise_binary() + " secrets rotate --store '" + schema->uri()
                        + "' --secret-key-file " + keys);
  INFO(out);
  CHECK(out.find("exit=0") != std::string::npos);
  auto after = dump(*schema);
  CHECK(after.find(pg_secret) == std::string::npos);
  CHECK(after.find("1:old:") == std::string::npos);
  CHECK(after.find("1:new:") != std::string::npos);
  srv.deprovision(stub, id, pg_secret);
  CHECK(srv.stop(SIGTERM) == 0);
}
