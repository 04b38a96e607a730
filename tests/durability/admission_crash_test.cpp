// Serialization and limits across SIGKILL: a child starting keyed and
// limited operations is killed at random points, many times, while they
// queue; a last child finishes them. The event log and the side effects
// must show that no two operations with the same key were in progress at
// once, that at most two of the limited workflow were, that each key's
// operations ran in creation order, and that nothing acknowledged is lost.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "storage/open_store.hpp"
#include "tests/durability/admission_log.hpp"
#include "tests/durability/child_process.hpp"

using namespace stepwise;
using namespace stepwise::test;

TEST_CASE("keys and limits hold across SIGKILL at random points", "[durability][admission]") {
  auto child = env_or_empty("STEPWISE_TEST_CHILD");
  REQUIRE(!child.empty());
  char tmpl[] = "/tmp/stepwise-admission-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  std::string dir = tmpl;
  auto uri = "sqlite:" + dir + "/ops.db", effects = dir + "/effects", acked = dir + "/acked";
  auto n = crash_cycles(30);
  auto runs = kill_at_random({child, "admission", uri, effects, acked, "run", "4"}, acked, n);
  for (size_t i = 0; i < runs.size(); ++i) {
    INFO("cycle " << i << " status " << runs[i]);
    CHECK(killed_or_clean(runs[i]));
  }
  auto pid = spawn({child, "admission", uri, effects, acked, "finish"});
  REQUIRE(exited_zero(reap(pid)));

  auto st = open_store(uri);
  REQUIRE(st);
  auto& store = **st;
  // Nothing acknowledged is lost, and everything finished.
  std::vector<operation> ops;
  for (auto& id : lines(acked)) {
    auto op = store.load(id);
    REQUIRE(op);
    REQUIRE(op->has_value());
    CHECK((*op)->state == op_state::succeeded);
    ops.push_back(**op);
  }
  INFO("acknowledged operations: " << ops.size());
  REQUIRE(ops.size() > 0);
  auto active = store.load_active();
  REQUIRE(active);
  CHECK(active->empty());
  auto events = store.events_after(0, 10'000'000);
  REQUIRE(events);
  auto spans = spans_of(ops, *events, read_effects(effects));
  for (auto& [id, s] : spans) {
    INFO(id);
    CHECK(s.start_seq > s.created_seq);
    CHECK(s.end_seq > s.start_seq);
  }
  CHECK(key_overlaps(spans) == std::vector<std::string>{});
  CHECK(order_breaks(spans) == std::vector<std::string>{});
  CHECK(most_at_once_by_seq(spans, "limited") <= 2);
  CHECK(most_at_once_by_time(spans, "limited") <= 2);
  // The keys and the limit were contended: operations did queue.
  size_t queued = 0;
  for (auto& e : *events)
    queued += e.type == event_type::operation_queued ? 1 : 0;
  CHECK(queued > 0);
  CHECK(most_at_once_by_seq(spans, "limited") == 2);
  WARN("operations: " << ops.size() << ", events: " << events->size()
                      << ", operation_queued events: " << queued);
  std::system(("rm -rf " + dir).c_str());
}
