// Secrets encrypted at rest, on the real binary and SQLite: no secret value
// in the database or its WAL, the steps of a restarted server see the real
// values, a wrong key fails only the operations it concerns (naming the key),
// and `stepwise secrets rotate` lets an old key go while a server runs.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <set>

#include <catch2/catch.hpp>

#include "engine/sealed_json.hpp"
#include "engine/secret_box.hpp"
#include "storage/open_store.hpp"
#include "engine/sealed_rows.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/secrets_support.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

const std::string sqlite_secret = "pw-Kx81-never-stored";

/// Checks that no file the database left holds the secret.
void check_files(const std::string& db) {
  for (auto suffix : {"", "-wal", "-shm", "-journal"}) {
    INFO(db + suffix);
    CHECK(occurrences(db + suffix, sqlite_secret) == 0);
  }
}

/// Returns the ids of the keys that sealed the values stored in `db`.
std::set<std::string> sealing_keys(const std::string& db) {
  auto st = open_store("sqlite:" + db);
  REQUIRE(st);
  auto* rows = dynamic_cast<sealed_rows*>(st->get());
  REQUIRE(rows != nullptr);
  auto found = rows->sealed_after("", 100000);
  REQUIRE(found);
  std::set<std::string> out;
  std::function<void(const boost::json::value&)> walk = [&](const boost::json::value& v) {
    if (is_sealed(v))
      out.insert(std::string{secret_box::key_id_of(v.at("$sealed").as_string())});
    else if (auto* o = v.if_object())
      for (auto& kv : *o)
        walk(kv.value());
    else if (auto* a = v.if_array())
      for (auto& x : *a)
        walk(x);
  };
  for (auto& row : *found) {
    walk(boost::json::parse(row.input));
    walk(boost::json::parse(row.data));
  }
  return out;
}

/// A SQLite database in a directory of its own, the key file serve makes
/// beside it, and a driver whose tasks run until told otherwise.
struct sqlite_case {
  temp_dir dir;
  std::string db = dir.path + "/sw.db";
  std::string keys = dir.path + "/sw.keys";
  ignition_stub stub;

  sqlite_case() {
    stub.answer(202, task_running);
  }

  std::vector<std::string> store() const {
    return {"--store", "sqlite:" + db};
  }
};

std::string first_field(const std::string& path) {
  std::ifstream in(path);
  std::string id;
  in >> id;
  return id;
}

} // namespace

TEST_CASE("secret values never reach the SQLite files; a restart resumes with them",
          "[http][process][secrets]") {
  sqlite_case c;
  auto& [dir, db, keys, stub] = c;
  std::string id;
  {
    secrets_server srv(stub, c.store());
    CHECK(srv.proc.err.find("created the key file " + keys) != std::string::npos);
    struct stat st {};
    REQUIRE(::stat(keys.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    id = srv.start("provision_runtime", provision_input("rt1", sqlite_secret));
    // Created, then polled: the driver was sent the real password.
    REQUIRE(await_requests(stub, 2));
    auto sent = passwords_sent(stub);
    CHECK(sent == std::vector<std::string>(sent.size(), sqlite_secret));
    auto shown = srv.get(id);
    CHECK(shown.at("input").at("deployment_location").at("properties") == "***");
    check_files(db);
    // A crash: what is on disk is what a restart finds.
    srv.stop(SIGKILL);
    CHECK(srv.proc.pid == -1);
  }
  check_files(db);
  auto before = stub.bodies().size();
  stub.answer(202, task_done);
  {
    secrets_server srv(stub, c.store());
    auto op = srv.finish(id);
    CHECK(op.at("state") == "succeeded");
    // The resumed wait polled with the password opened from the store.
    auto polled = passwords_sent(stub, before);
    REQUIRE(!polled.empty());
    CHECK(polled == std::vector<std::string>(polled.size(), sqlite_secret));
    // Deprovisioning opens the provisioning's location to delete.
    srv.deprovision(stub, id, sqlite_secret);
    CHECK(srv.stop(SIGTERM) == 0);
  }
  check_files(db);
  // The key file lost: no new key, which could open nothing stored.
  REQUIRE(::unlink(keys.c_str()) == 0);
  auto out = run_status(stepwise_binary() + " serve --listen 127.0.0.1:0 --store sqlite:" + db);
  INFO(out);
  CHECK(out.find("exit=2") != std::string::npos);
  CHECK(out.find("the key file " + keys + " is missing") != std::string::npos);
}

TEST_CASE("a wrong key fails the operations it concerns, naming the key; others go on",
          "[http][process][secrets]") {
  sqlite_case c;
  auto& [dir, db, keys, stub] = c;
  std::string id;
  {
    secrets_server srv(stub, c.store());
    id = srv.start("provision_runtime", provision_input("rt1", sqlite_secret));
    REQUIRE(await_requests(stub, 2));
    CHECK(srv.stop(SIGTERM) == 0);
  }
  // The key file replaced by another key under the same id.
  auto key_id = first_field(keys);
  REQUIRE(!key_id.empty());
  write_private(keys, new_key_line(key_id));
  stub.answer(202, task_done);
  secrets_server srv(stub, c.store());
  auto failed = srv.finish(id);
  CHECK(failed.at("state") == "failed");
  std::string error{failed.at("error").as_string()};
  INFO(error);
  CHECK(error.find("key '" + key_id + "'") != std::string::npos);
  CHECK(error.find("not the one it was sealed with") != std::string::npos);
  CHECK(error.find(sqlite_secret) == std::string::npos);
  // Operations sealed with the key in use, and those with no secret, run.
  auto other = srv.finish(srv.start("provision_runtime", provision_input("rt2", sqlite_secret)));
  CHECK(other.at("state") == "succeeded");
  auto demo = srv.finish(srv.start("demo", R"({"name":"x"})"));
  CHECK(demo.at("state") == "succeeded");
  CHECK(srv.stop(SIGTERM) == 0);
}

TEST_CASE("secrets rotate re-encrypts while the server runs; the old key can then go",
          "[http][process][secrets]") {
  temp_dir dir;
  auto db = dir.path + "/sw.db";
  auto keys = dir.path + "/keys";
  auto old_line = new_key_line("old");
  write_private(keys, old_line);
  auto flags = std::vector<std::string>{"--store", "sqlite:" + db, "--secret-key-file", keys};
  ignition_stub stub;
  std::string done_id;
  std::string live_id;
  {
    stub.answer(202, task_done);
    secrets_server srv(stub, flags);
    done_id = srv.start("provision_runtime", provision_input("rt1", sqlite_secret));
    CHECK(srv.finish(done_id).at("state") == "succeeded");
    stub.answer(202, task_running);
    auto seen = stub.bodies().size();
    live_id = srv.start("provision_runtime", provision_input("rt2", sqlite_secret));
    REQUIRE(await_requests(stub, seen + 2));
    CHECK(srv.stop(SIGTERM) == 0);
  }
  CHECK(sealing_keys(db) == std::set<std::string>{"old"});
  // A new first key; servers restart with it, then the stored values move.
  auto new_line = new_key_line("new");
  write_private(keys, new_line + old_line);
  {
    secrets_server srv(stub, flags);
    auto third = srv.start("provision_runtime", provision_input("rt3", sqlite_secret));
    auto out = run_status(stepwise_binary() + " secrets rotate --batch 1 --store sqlite:" + db
                          + " --secret-key-file " + keys);
    INFO(out);
    CHECK(out.find("exit=0") != std::string::npos);
    CHECK(out.find("every sealed secret value is under key new") != std::string::npos);
    CHECK(sealing_keys(db) == std::set<std::string>{"new"});
    stub.answer(202, task_done);
    CHECK(srv.finish(live_id).at("state") == "succeeded");
    CHECK(srv.finish(third).at("state") == "succeeded");
    CHECK(srv.stop(SIGTERM) == 0);
  }
  CHECK(sealing_keys(db) == std::set<std::string>{"new"});
  // The old key removed: every value still opens.
  write_private(keys, new_line);
  stub.answer(202, task_done);
  secrets_server srv(stub, flags);
  for (auto& id : {done_id, live_id})
    srv.deprovision(stub, id, sqlite_secret);
  CHECK(srv.stop(SIGTERM) == 0);
}
