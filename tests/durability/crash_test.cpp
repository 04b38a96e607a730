// Kills a child running operations with SIGKILL at random points, many
// times; then checks that nothing acknowledged was lost, no checkpointed
// step ran again, and the event log has no gap and one terminal event per
// operation.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/durability/child_process.hpp"

#include "engine/errc.hpp"
#include "storage/open_store.hpp"

using namespace stepwise;
using namespace stepwise::test;

TEST_CASE("operations survive SIGKILL at random points", "[durability]") {
  auto child = env_or_empty("STEPWISE_TEST_CHILD");
  REQUIRE(!child.empty());
  char tmpl[] = "/tmp/stepwise-crash-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  std::string dir = tmpl;
  auto db = dir + "/ops.db", effects = dir + "/effects", acked = dir + "/acked";
  auto n = crash_cycles(50);
  auto runs = kill_at_random({child, "crash", db, effects, acked, "run", "8"}, acked, n);
  for (size_t i = 0; i < runs.size(); ++i) {
    INFO("cycle " << i << " status " << runs[i]);
    CHECK(killed_or_clean(runs[i]));
  }
  auto pid = spawn({child, "crash", db, effects, acked, "finish"});
  REQUIRE(exited_zero(reap(pid)));

  auto st = open_store("sqlite:" + db);
  REQUIRE(st);
  auto& store = **st;
  // Nothing acknowledged is lost, and everything finished.
  auto ids = lines(acked);
  INFO("acknowledged operations: " << ids.size());
  REQUIRE(ids.size() > 0);
  std::map<std::string, operation> ops;
  for (auto& id : ids) {
    auto op = store.load(id);
    REQUIRE(op);
    REQUIRE(op->has_value());
    CHECK((*op)->state == op_state::succeeded);
    ops.emplace(id, **op);
  }
  auto active = store.load_active();
  REQUIRE(active);
  CHECK(active->empty());
  // The event log: no gap, one terminal event per operation, one success
  // per step.
  auto log = read_event_log(store);
  REQUIRE(log.error.empty());
  CHECK(log.first_gap == 0);
  auto& terminal = log.terminal;
  std::map<std::string, int> succeeded_attempt;
  for (auto& e : log.events) {
    if (e.type == event_type::step_succeeded) {
      auto key = e.operation_id + " " + e.step;
      CHECK(succeeded_attempt.count(key) == 0);
      succeeded_attempt[key] = e.attempt;
    }
  }
  for (auto& [id, op] : ops)
    CHECK(terminal[id] == 1);
  // Side effects: no attempt ran after the step's success was checkpointed
  // (a later attempt number), and attempts whose start was written before
  // they ran ran at most once.
  std::set<std::string> seen;
  size_t reruns = 0;
  for (auto& l : lines(effects)) {
    std::istringstream in{l};
    std::string id, step;
    int attempt = 0;
    in >> id >> step >> attempt;
    // An attempt begun by a timer is written with its result, so a crash
    // in between may run it again under the same number; others never.
    if (step != "b" && step != "c")
      CHECK(seen.insert(l).second);
    auto key = id + " " + step;
    if (!ops.count(id))
      continue; // started but never acknowledged: may or may not exist
    REQUIRE(succeeded_attempt.count(key) == 1);
    CHECK(attempt <= succeeded_attempt[key]);
    reruns += attempt > 1 && step != "b" ? 1 : 0;
  }
  for (auto& [id, op] : ops)
    for (auto& s : op.steps)
      CHECK(s.state == step_state::succeeded);
  // Informational: how many steps ran again after a crash (at-least-once).
  WARN("operations: " << ops.size() << ", events: " << log.events.size()
                      << ", re-executed attempts after crashes: " << reruns);
  std::system(("rm -rf " + dir).c_str());
}
