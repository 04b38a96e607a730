// Two processes on one PostgreSQL schema: one delivers the sink (it holds
// the sink's lease), the other waits; the first is killed, the second
// takes the sink over and delivers everything.

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/durability/child_process.hpp"
#include "tests/outbox/receiver.hpp"
#include "tests/outbox/support.hpp"
#include "tests/storage/pg_test_schema.hpp"
#include "tests/storage/store_backends.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

constexpr int lease_ms = 1000;

std::string holder(pg_store& st) {
  auto recs = st.sink_records();
  REQUIRE(recs);
  return recs->empty() ? "" : recs->front().holder;
}

bool held_by(pg_store& st, pid_t pid) {
  auto h = holder(st);
  return h.find(":" + std::to_string(pid) + ":") != std::string::npos;
}

} // namespace

TEST_CASE("another process takes the sink over when its holder dies", "[outbox][pg][lease]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto child = std::getenv("STEPWISE_TEST_CHILD");
  REQUIRE(child != nullptr);
  auto st = schema->open(); // migrated before the children start
  temp_dir dir;
  webhook_receiver rx;
  rx.fail_every(5);
  auto spec = "hook=webhook:" + rx.url();
  auto ms = std::to_string(lease_ms);
  auto first = spawn({child, "outbox", schema->uri(), spec, "30", "run", dir.file("a1"), ms});
  REQUIRE(eventually([&] { return held_by(*st, first) && rx.accepted().size() > 10; }, 60s));
  auto second = spawn({child, "outbox", schema->uri(), spec, "30", "finish", dir.file("a2"), ms});
  // Both deliver nothing twice at once: the first keeps the sink while it
  // lives, though the second runs operations of its own.
  REQUIRE(eventually([&] { return lines(dir.file("a2")).size() == 30; }, 60s));
  CHECK(held_by(*st, first));
  auto killed_at = std::chrono::steady_clock::now();
  ::kill(first, SIGKILL);
  CHECK(WIFSIGNALED(reap(first)));
  // The cursors the dead holder left: a write it sent just before the kill
  // may still commit on the server, so every value seen until the other
  // process holds the sink counts.
  std::vector<int64_t> cursors_at_kill;
  REQUIRE(eventually(
    [&] {
      auto recs = st->sink_records();
      REQUIRE(recs);
      REQUIRE(recs->size() == 1);
      auto& r = recs->front();
      if (r.holder.find(":" + std::to_string(second) + ":") != std::string::npos)
        return true;
      cursors_at_kill.push_back(r.cursor);
      return false;
    },
    30s));
  auto took_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - killed_at)
                   .count();
  auto status = reap(second);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  auto events = st->events_after(0, 10'000'000);
  REQUIRE(events);
  auto c = check_delivery(*events, from_webhook(rx.accepted()));
  INFO("first problem: " << (c.problems.empty() ? "" : c.problems.front()));
  CHECK(c.problems.empty());
  // The second process began right after the stored cursor.
  auto restarts = check_restarts(*events, from_webhook(rx.accepted()), cursors_at_kill);
  INFO("first restart problem: " << (restarts.empty() ? "" : restarts.front()));
  CHECK(restarts.empty());
  // The sink's lease ends at most `ttl` after the last renewal; the other
  // process asks every poll (200 ms on a shared store).
  CHECK(took_ms <= lease_ms + 200 + 2000);
  WARN("sink takeover after " << took_ms << " ms; events " << events->size() << ", duplicates "
                              << c.duplicates);
  CHECK(holder(*st).empty()); // released at the clean stop
}
