// Three processes share one PostgreSQL schema and run a mixed load; one is
// killed with SIGKILL mid-run. The two others must take its operations
// over and finish everything: every operation completes exactly once, no
// step runs again after its success was checkpointed, the event log has no
// gap, and the takeover happens within the lease period plus one claim
// period (the figure is printed as `takeover_ms=`).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/eventually.hpp"
#include "tests/durability/child_process.hpp"

#include "engine/errc.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

constexpr int ops_per_child = 40;
constexpr int ttl_ms = 2000;
// The lease expires at most `ttl` after the victim's last renewal (before
// the kill); the survivors claim every ttl / 3. The margin covers a claim,
// a commit and a step dispatch on a loaded (or sanitized) 2-core machine.
constexpr int takeover_bound_ms = ttl_ms + ttl_ms / 3 + 2000;

} // namespace

TEST_CASE("three processes, one killed: the others take over and finish "
          "everything exactly once",
          "[durability][pg][lease]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto child = std::getenv("STEPWISE_TEST_CHILD");
  REQUIRE(child != nullptr);
  // Migrate before the children start, so none waits on another's DDL.
  auto check = schema->open();
  char tmpl[] = "/tmp/stepwise-takeover-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  std::string dir = tmpl;
  auto fx = dir + "/effects";
  std::vector<std::string> acked;
  std::vector<pid_t> pids;
  for (int i = 0; i < 3; ++i) {
    acked.push_back(dir + "/acked" + std::to_string(i));
    pids.push_back(spawn({child, "lease", schema->uri(), fx, acked.back(),
                          std::to_string(ops_per_child), std::to_string(ttl_ms)}));
    REQUIRE(pids.back() > 0);
  }
  // Kill the victim mid-run: all its operations acknowledged, about half
  // past their first step (none can be done: each sleeps 600 ms).
  auto victim = pids[0];
  auto victim_progress = [&] {
    size_t first_steps = 0;
    for (auto& e : read_effects(fx))
      first_steps += e.pid == victim && e.step == "a" ? 1 : 0;
    return lines(acked[0]).size() == ops_per_child && first_steps >= ops_per_child / 2;
  };
  REQUIRE(eventually(victim_progress, std::chrono::seconds(120)));
  auto killed_at = wall_us();
  ::kill(victim, SIGKILL);
  auto status = reap(victim);
  CHECK(WIFSIGNALED(status));
  for (size_t i = 1; i < pids.size(); ++i) {
    status = reap(pids[i]);
    INFO("survivor " << i << " status " << status);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }

  // Everything acknowledged finished, and nothing is left.
  std::set<std::string> victim_ops;
  std::map<std::string, operation> ops;
  for (size_t i = 0; i < acked.size(); ++i) {
    auto ids = lines(acked[i]);
    CHECK(ids.size() == ops_per_child);
    for (auto& id : ids) {
      if (i == 0)
        victim_ops.insert(id);
      auto op = check->load(id);
      REQUIRE(op);
      REQUIRE(op->has_value());
      CHECK((*op)->state == op_state::succeeded);
      for (auto& s : (*op)->steps)
        CHECK(s.state == step_state::succeeded);
      ops.emplace(id, **op);
    }
  }
  auto active = check->load_active();
  REQUIRE(active);
  CHECK(active->empty());
  auto owners = check->owners();
  REQUIRE(owners);
  CHECK(owners->empty()); // survivors left, the victim's lease was ended

  // The event log: no gap, exactly one terminal event per operation (a
  // success), one success per step.
  auto events = check->events_after(0, 10'000'000);
  REQUIRE(events);
  std::map<std::string, int> terminal;
  std::map<std::string, std::pair<int, int64_t>> succeeded; // attempt, time
  int64_t expect = 1;
  for (auto& e : *events) {
    CHECK(e.seq == expect);
    expect = e.seq + 1;
    if (is_terminal(e.type)) {
      terminal[e.operation_id] += 1;
      CHECK(e.type == event_type::operation_succeeded);
    }
    if (e.type == event_type::step_succeeded) {
      auto key = e.operation_id + " " + e.step;
      CHECK(succeeded.count(key) == 0);
      succeeded[key] = {e.attempt, to_micros(e.time)};
    }
  }
  for (auto& [id, op] : ops)
    CHECK(terminal[id] == 1);

  // Side effects: none after its step's success was checkpointed; steps
  // whose start is written before they run ran at most once per attempt
  // (an attempt begun by a timer, b's second and c, is written with its
  // result, so a kill in between may run it again under the same number).
  std::set<std::string> seen;
  int64_t first_resumed_us = 0;
  size_t resumed = 0;
  for (auto& e : read_effects(fx)) {
    auto key = e.op + " " + e.step;
    if (!ops.count(e.op))
      continue; // started but never acknowledged
    REQUIRE(succeeded.count(key) == 1);
    CHECK(e.attempt <= succeeded[key].first);
    CHECK(e.t_us <= succeeded[key].second);
    if (e.step != "b" && e.step != "c")
      CHECK(seen.insert(key + " " + std::to_string(e.attempt)).second);
    if (victim_ops.count(e.op) && e.pid != victim) {
      CHECK(e.t_us > killed_at);
      resumed += 1;
      if (first_resumed_us == 0 || e.t_us < first_resumed_us)
        first_resumed_us = e.t_us;
    }
  }
  REQUIRE(resumed > 0);
  auto takeover_ms = (first_resumed_us - killed_at) / 1000;
  std::cout << "takeover_ms=" << takeover_ms << " (ttl_ms=" << ttl_ms << ", claim period "
            << ttl_ms / 3 << " ms, bound " << takeover_bound_ms
            << " ms); steps resumed from the killed "
            << "process: " << resumed << '\n';
  WARN("takeover_ms=" << takeover_ms);
  CHECK(takeover_ms <= takeover_bound_ms);
  std::system(("rm -rf " + dir).c_str());
}
