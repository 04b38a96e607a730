// SQLite on a full disk, on the real binary: a tmpfs of a few MiB is filled
// up under the server. New operations get 503 with the reason, /readyz
// says why, nothing acknowledged is lost or half-written, and once space is
// back everything goes on by itself. Needs root (mount); says so and skips
// without it.
#include <unistd.h>

#include <thread>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "storage/open_store.hpp"
#include "tests/faults/fault_support.hpp"

using namespace stepwise;
using namespace stepwise::test;
using steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

/// A tmpfs of `mib` MiB mounted on DIR/fs, unmounted at destruction.
struct small_fs {
  std::string path;
  explicit small_fs(const std::string& dir, int mib) : path(dir + "/fs") {
    auto out =
      run_command("mkdir -p '" + path + "' && mount -t tmpfs -o size=" + std::to_string(mib)
                  + "m stepwise-test '" + path + "' && echo mounted");
    INFO(out);
    REQUIRE(out.find("mounted") != std::string::npos);
  }
  ~small_fs() {
    run_command("umount -l '" + path + "'");
  }
};

struct attempt {
  int status = 0;
  std::string id;
  std::string body;
};

attempt create(httplib::Client& c, size_t i, const std::string& pad) {
  auto body = R"({"workflow":"bench_steps","idempotency_key":"disk-)" + std::to_string(i)
              + R"(","input":{"pad":")" + pad + R"("}})";
  auto r = c.Post("/api/v1/operations", body, "application/json");
  attempt a;
  if (!r)
    return a;
  a.status = r->status;
  a.body = r->body;
  if (r->status == 201 || r->status == 200)
    a.id = std::string(boost::json::parse(r->body).at("id").as_string());
  return a;
}

} // namespace

TEST_CASE("SQLite on a full disk: 503 with the reason, and on by itself once space is back",
          "[faults][sqlite][process]") {
  if (::geteuid() != 0) {
    WARN("skipped: mounting a small file system needs root");
    return;
  }
  temp_dir dir;
  small_fs fs(dir.path, 16);
  auto uri = "sqlite:" + fs.path + "/stepwise.db";
  fault_server srv(dir.path, {"--store", uri, "--workflows", "bench", "--request-timeout", "3"});
  REQUIRE(srv.await_readyz(200, 30s));
  auto c = srv.client();
  std::string pad(16 * 1024, 'x');
  std::vector<std::string> ids;
  for (size_t i = 0; i < 20; ++i) {
    auto a = create(*c, i, pad);
    REQUIRE(a.status == 201);
    ids.push_back(a.id);
  }
  auto filler = fs.path + "/filler";
  run_command("dd if=/dev/zero of='" + filler + "' bs=64k");
  // Creates until the store says the disk is full; those answered 503 are
  // sent again (same key) once there is space.
  std::vector<size_t> unanswered;
  std::string refused;
  for (size_t i = 20; i < 2000 && refused.empty(); ++i) {
    auto a = create(*c, i, pad);
    if (a.status == 201) {
      ids.push_back(a.id);
      continue;
    }
    INFO(a.body);
    REQUIRE(a.status == 503);
    unanswered.push_back(i);
    if (a.body.find("store_failure") != std::string::npos)
      refused = a.body;
  }
  INFO(refused);
  REQUIRE(!refused.empty());
  CHECK(refused.find("full") != std::string::npos);
  CHECK(refused.find("nothing was written") != std::string::npos);
  auto ready = srv.readyz();
  CHECK(ready.first == 503);
  CHECK(ready.second.find("full") != std::string::npos);
  run_command("rm -f '" + filler + "'");
  auto freed = steady::now();
  CHECK(srv.await_readyz(200, 30s));
  auto ready_after = std::chrono::duration<double>(steady::now() - freed).count();
  for (auto i : unanswered) {
    auto a = create(*c, i, pad);
    INFO(a.body);
    CHECK((a.status == 201 || a.status == 200));
    if (!a.id.empty())
      ids.push_back(a.id);
  }
  auto log = await_ended(srv, ids, 60s);
  check_run(srv, log, ids);
  CHECK(srv.log().find("full") != std::string::npos);
  CHECK(srv.stop() == 0);
  // What the file holds is whole: every operation ended, every event there.
  auto st = open_store(uri);
  REQUIRE(st);
  auto active = (*st)->load_active();
  REQUIRE(active);
  CHECK(active->empty());
  auto events = (*st)->events_after(0, 1000000);
  REQUIRE(events);
  CHECK(events->size() == log.size());
  print_figure({{"test", "sqlite_full_disk"},
                {"acknowledged", ids.size()},
                {"ready_after_space_s", ready_after}});
}
