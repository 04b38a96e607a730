// The PostgreSQL procedure of README.md's "Backup and restore" on the real
// binary: pg_dump while a server runs operations, pg_restore into a fresh
// database, a server on it with the same key file: every operation resumes
// and finishes, its secret values opened. Skips without STEPWISE_TEST_PG_URI.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"
#include "tests/http/secrets_support.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

const std::string pg_backup_secret = "pg-pw-Rs63-restored";

/// Returns the PostgreSQL client program `name`: Debian's server
/// directory's, else the PATH's.
std::string pg_program(const std::string& name) {
  auto debian = "/usr/lib/postgresql/15/bin/" + name;
  return ::access(debian.c_str(), X_OK) == 0 ? debian : name;
}

/// Returns `uri` naming database `db` instead of its own.
std::string with_database(const std::string& uri, const std::string& db) {
  auto path = uri.find('/', uri.find("://") + 3);
  REQUIRE(path != std::string::npos);
  auto end = uri.find('?', path);
  return uri.substr(0, path + 1) + db + (end == std::string::npos ? "" : uri.substr(end));
}

/// A database of its own on the test server, dropped (sessions and all)
/// at destruction.
struct fresh_database {
  std::string base;
  std::string name;

  fresh_database(const pg_test_schema& schema, const std::string& base_uri)
    : base(base_uri), name("r_" + schema.name()) {
    schema.admin("CREATE DATABASE " + name);
  }

  ~fresh_database() {
    run_command(pg_program("psql") + " -q '" + base + "' -c 'DROP DATABASE IF EXISTS " + name
                + " WITH (FORCE)' 2>&1");
  }
};

} // namespace

TEST_CASE("a pg_dump taken while a server runs restores into a fresh database where every "
          "operation resumes",
          "[http][process][backup][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto base = pg_test_uri();
  REQUIRE(base);
  temp_dir dir;
  auto keys = dir.path + "/keys";
  auto dump = dir.path + "/stepwise.dump";
  write_private(keys, new_key_line("k1"));
  // A short lease: the restored database names the dumped server as the
  // owner of its operations; a server on it takes them over once that
  // lease has expired.
  std::vector<std::string> flags{"--secret-key-file", keys, "--lease-ttl", "1"};
  ignition_stub stub;
  stub.answer(202, task_running);
  std::vector<std::string> ids;
  {
    auto on_schema = flags;
    on_schema.insert(on_schema.end(), {"--store", schema->uri()});
    secrets_server srv(stub, on_schema);
    for (int i = 0; i < 3; ++i)
      ids.push_back(srv.start("provision_runtime",
                              provision_input("rt" + std::to_string(i), pg_backup_secret)));
    for (int i = 0; i < 2; ++i)
      ids.push_back(srv.start("demo", R"({"name":"d)" + std::to_string(i) + R"(","token":")"
                                        + pg_backup_secret + R"("})"));
    // Each provisioning has sent its create: they wait on the driver.
    REQUIRE(await_requests(stub, 3));
    auto out = run_status(pg_program("pg_dump") + " --format=custom --no-owner --schema="
                          + schema->name() + " --file " + dump + " '" + *base + "'");
    INFO(out);
    REQUIRE(out.find("exit=0") != std::string::npos);
    CHECK(srv.stop(SIGTERM) == 0);
  }
  fresh_database fresh(*schema, *base);
  auto restored = run_status(pg_program("pg_restore") + " --no-owner --exit-on-error --dbname '"
                             + with_database(*base, fresh.name) + "' " + dump);
  INFO(restored);
  REQUIRE(restored.find("exit=0") != std::string::npos);
  auto sent_before = stub.bodies().size();
  stub.answer(202, task_done);
  flags.insert(flags.end(), {"--store", with_database(schema->uri(), fresh.name)});
  secrets_server srv(stub, flags);
  check_resumed(srv, stub, ids, sent_before, pg_backup_secret);
  CHECK(srv.stop(SIGTERM) == 0);
}
