// `stepwise backup` on the real binary and SQLite: a copy taken while a
// server starts operations restores (stop, copy the copy and its key file
// back, start) to a server on which every operation acknowledged before the
// copy began exists and finishes, sleeping ones included, with its secret
// values opened by the restored key. And what the command refuses.
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/eventually.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/secrets_support.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

const std::string backup_secret = "pw-Bk27-restored-with-its-key";

/// Starts operations on a server until stopped, alternately a `demo` (a
/// durable 2 s sleep, a secret token) and a `provision_runtime` (a live
/// wait on the driver, a secret password), and records each one the server
/// acknowledged (201), in order.
class op_loader {
public:
  explicit op_loader(int port) : http_("127.0.0.1", port) {
    http_.set_read_timeout(30, 0);
    thread_ = std::thread([this] { run(); });
  }

  ~op_loader() {
    stop();
  }

  void stop() {
    stop_ = true;
    if (thread_.joinable())
      thread_.join();
  }

  std::vector<std::string> acknowledged() {
    std::lock_guard<std::mutex> g{mtx_};
    return acked_;
  }

  /// Answers other than 201 (none expected).
  std::vector<std::string> refused() {
    std::lock_guard<std::mutex> g{mtx_};
    return refused_;
  }

private:
  void run() {
    for (int i = 0; !stop_ && i < 2000; ++i) {
      auto name = "rt" + std::to_string(i);
      auto body = i % 2 == 0 ? R"({"workflow":"demo","input":{"name":")" + name + R"(","token":")"
                                 + backup_secret + R"("}})"
                             : R"({"workflow":"provision_runtime","input":)"
                                 + provision_input(name, backup_secret) + "}";
      auto r = to_reply(http_.Post("/api/v1/operations", body, "application/json"));
      std::lock_guard<std::mutex> g{mtx_};
      if (r.status == 201)
        acked_.emplace_back(r.json.at("id").as_string().c_str());
      else
        refused_.push_back(std::to_string(r.status) + " " + r.body);
    }
  }

  httplib::Client http_;
  std::atomic<bool> stop_{false};
  std::mutex mtx_;
  std::vector<std::string> acked_;
  std::vector<std::string> refused_;
  std::thread thread_;
};

/// Puts `from` in place of `to` as a restore does: the old database's WAL
/// and shared-memory files go first, since SQLite would apply that WAL to
/// the restored file.
void copy_back(const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  for (auto suffix : {"-wal", "-shm"})
    fs::remove(to + suffix);
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

} // namespace

TEST_CASE("a backup under load restores to a server on which every acknowledged operation "
          "resumes with its secrets",
          "[http][process][backup]") {
  temp_dir dir;
  auto db = dir.path + "/sw.db";
  auto keys = dir.path + "/sw.keys";
  auto copy = dir.path + "/copy.db";
  auto copy_keys = dir.path + "/copy.keys";
  ignition_stub stub;
  stub.answer(202, task_running);
  std::vector<std::string> before;
  {
    secrets_server srv(stub, {"--store", "sqlite:" + db});
    op_loader load(srv.port);
    // Enough rows for a copy of many one-page steps, while more arrive.
    REQUIRE(eventually([&] { return load.acknowledged().size() >= 40; }, std::chrono::seconds(60)));
    before = load.acknowledged();
    auto out = run_status(stepwise_binary() + " backup --store sqlite:" + db + " --to " + copy
                          + " --pages-per-step 1");
    auto during = load.acknowledged().size();
    load.stop();
    INFO(out);
    CHECK(out.find("exit=0") != std::string::npos);
    CHECK(out.find("wrote " + copy + ": a copy of " + db) != std::string::npos);
    CHECK(out.find("copied the key file " + keys + " to " + copy_keys) != std::string::npos);
    CHECK(load.refused().empty());
    UNSCOPED_INFO(before.size() << " acknowledged before the copy, " << during << " by its end");
    CHECK(srv.stop(SIGTERM) == 0);
  }
  struct stat st {};
  REQUIRE(::stat(copy_keys.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(occurrences(copy, backup_secret) == 0);
  // Restore: the server is stopped; the copy and its key replace the
  // database and its key.
  copy_back(copy, db);
  copy_back(copy_keys, keys);
  auto sent_before = stub.bodies().size();
  stub.answer(202, task_done);
  secrets_server srv(stub, {"--store", "sqlite:" + db});
  check_resumed(srv, stub, before, sent_before, backup_secret);
  CHECK(srv.stop(SIGTERM) == 0);
}

TEST_CASE("stepwise backup refuses to overwrite, and names pg_dump for PostgreSQL",
          "[http][process][backup]") {
  temp_dir dir;
  auto db = dir.path + "/sw.db";
  auto copy = dir.path + "/copy.db";
  auto bin = stepwise_binary();
  auto missing = run_status(bin + " backup --store sqlite:" + db + " --to " + copy);
  INFO(missing);
  CHECK(missing.find("exit=1") != std::string::npos);
  CHECK(missing.find("no database at " + db) != std::string::npos);
  {
    ignition_stub stub;
    secrets_server srv(stub, {"--store", "sqlite:" + db});
    CHECK(srv.stop(SIGTERM) == 0);
  }
  auto first = run_status(bin + " backup --store sqlite:" + db + " --to " + copy);
  INFO(first);
  CHECK(first.find("exit=0") != std::string::npos);
  auto again = run_status(bin + " backup --store sqlite:" + db + " --to " + copy);
  INFO(again);
  CHECK(again.find("exit=2") != std::string::npos);
  CHECK(again.find("copy.keys exists: pass --force") != std::string::npos);
  auto forced = run_status(bin + " backup --force --store sqlite:" + db + " --to " + copy);
  INFO(forced);
  CHECK(forced.find("exit=0") != std::string::npos);
  auto pg = run_status(bin + " backup --store postgresql://u:pw@host/db --to dump");
  INFO(pg);
  CHECK(pg.find("exit=1") != std::string::npos);
  CHECK(pg.find("pg_dump --format=custom --file dump 'postgresql://u:***@host/db'")
        != std::string::npos);
  CHECK(pg.find("pw@") == std::string::npos);
}
