// Keys and limits with two processes on one PostgreSQL schema: both start
// operations with the same keys and of the same limited workflow; one is
// killed with SIGKILL mid-run. Operations with one key ran one at a time
// in creation order whichever process created them, the limit held over
// both processes together, each process ran only its own operations while
// it lived (a queued one admitted by the other's round included), and the
// survivor took over and ran the killed one's queued operations.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <algorithm>
#include <map>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/eventually.hpp"
#include "tests/durability/admission_log.hpp"
#include "tests/durability/child_process.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

constexpr int per_kind = 12; // keyed and limited operations per process
constexpr int lease_ttl_ms = 2000;

} // namespace

TEST_CASE("two processes on PostgreSQL share keys and limits; the survivor runs the "
          "killed one's queue",
          "[durability][pg][admission]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto child = std::getenv("STEPWISE_TEST_CHILD");
  REQUIRE(child != nullptr);
  auto check = schema->open(); // migrates before the children start
  char tmpl[] = "/tmp/stepwise-admission-pg-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  std::string dir = tmpl;
  auto fx = dir + "/effects";
  std::vector<std::string> acked{dir + "/acked-a", dir + "/acked-b"};
  std::vector<pid_t> pids;
  for (auto& file : acked) {
    pids.push_back(spawn({child, "admission", schema->uri(), fx, file, "share",
                          std::to_string(per_kind), std::to_string(lease_ttl_ms)}));
    REQUIRE(pids.back() > 0);
  }
  auto victim = pids[0], survivor = pids[1];
  // Kill A once it started everything and an eighth of all operations are
  // done: keys changed hands between the processes already, and many of
  // A's keyed ones are still queued (the keyed ones nap 150 ms in this
  // mode: with 40 ms, a slow machine under ASan found them all begun).
  auto eighth_done = [&] {
    size_t n = 0;
    for (auto& e : read_effects(fx))
      n += e.step == "b" ? 1 : 0;
    return lines(acked[0]).size() == 2 * per_kind && n >= per_kind / 2;
  };
  REQUIRE(eventually(eighth_done, std::chrono::seconds(120)));
  ::kill(victim, SIGKILL);
  CHECK(WIFSIGNALED(reap(victim)));
  // Taken once A is reaped: A may still run between kill() and its death,
  // so only effects after this instant are certainly not A's.
  auto killed_at = wall_us();
  auto status = reap(survivor);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));

  // Everything acknowledged finished, and nothing is left.
  std::vector<operation> ops;
  std::map<std::string, pid_t> creator;
  for (size_t i = 0; i < acked.size(); ++i) {
    auto ids = lines(acked[i]);
    CHECK(ids.size() == 2 * per_kind);
    for (auto& id : ids) {
      auto op = check->load(id);
      REQUIRE(op);
      REQUIRE(op->has_value());
      CHECK((*op)->state == op_state::succeeded);
      ops.push_back(**op);
      creator[id] = pids[i];
    }
  }
  auto active = check->load_active();
  REQUIRE(active);
  CHECK(active->empty());
  auto events = check->events_after(0, 10'000'000);
  REQUIRE(events);
  auto spans = spans_of(ops, *events, read_effects(fx));
  CHECK(key_overlaps(spans) == std::vector<std::string>{});
  CHECK(order_breaks(spans) == std::vector<std::string>{});
  CHECK(most_at_once_by_seq(spans, "limited") <= 2);
  CHECK(most_at_once_by_time(spans, "limited") <= 2);

  // Who ran what: while A lived, each process ran only what it created
  // (B takes nothing over before A's lease expires, lease_ttl_ms after the
  // kill); after A died, B ran everything.
  size_t taken_queued = 0;
  for (auto& e : read_effects(fx)) {
    INFO(e.op << " " << e.step << " by " << e.pid);
    if (e.t_us < killed_at)
      CHECK(e.pid == creator[e.op]);
    else
      CHECK(e.pid == survivor);
  }
  for (auto& [id, s] : spans)
    if (creator[id] == victim && s.first_effect_us > killed_at && !s.key.empty())
      taken_queued += 1;
  // Handoffs between the processes: an operation of one process waited for
  // one of the other with its key, and started before the kill.
  size_t handoffs = 0;
  std::map<std::string, std::vector<const op_span*>> keyed;
  for (auto& [id, s] : spans)
    if (!s.key.empty())
      keyed[s.key].push_back(&s);
  for (auto& [key, list] : keyed) {
    std::sort(list.begin(), list.end(),
              [](auto* a, auto* b) { return a->start_seq < b->start_seq; });
    for (size_t i = 1; i < list.size(); ++i)
      handoffs +=
        creator[list[i]->id] != creator[list[i - 1]->id] && list[i]->first_effect_us < killed_at
          ? 1
          : 0;
  }
  std::cout << "two processes: " << ops.size() << " operations, " << handoffs
            << " handoffs of a key between the processes before the kill, " << taken_queued
            << " queued operations of the killed process run by the survivor\n";
  CHECK(handoffs > 0);
  CHECK(taken_queued > 0);
  std::system(("rm -rf " + dir).c_str());
}
