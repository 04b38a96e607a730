// Version pinning across SIGKILL: operations started on version 1 finish on
// version 1 once version 2 is registered; without version 1 they fail,
// naming it, and the process exits (nothing hangs).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/durability/child_process.hpp"

#include "storage/open_store.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

/// Runs `start N` until every operation is acknowledged and ran step `a`
/// (it then holds), and kills it.
std::vector<std::string> started_then_killed(const std::string& dir, int n) {
  auto db = dir + "/ops.db", effects = dir + "/effects", acked = dir + "/acked";
  auto pid = spawn({env_or_empty("STEPWISE_TEST_CHILD"), "version", db, effects, acked, "start",
                    std::to_string(n)});
  REQUIRE(pid > 0);
  auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto want = static_cast<size_t>(n);
  while ((lines(effects).size() < want || lines(acked).size() < want)
         && std::chrono::steady_clock::now() < limit)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, SIGKILL);
  reap(pid);
  auto ids = lines(acked);
  REQUIRE(ids.size() == static_cast<size_t>(n));
  return ids;
}

/// Returns the steps of the effect lines of `id`.
std::multiset<std::string> steps_run(const std::string& effects, const std::string& id) {
  std::multiset<std::string> out;
  for (auto& l : lines(effects)) {
    std::istringstream in{l};
    std::string op, step;
    in >> op >> step;
    if (op == id)
      out.insert(step);
  }
  return out;
}

/// Operations started on v1 by a child that was then killed, in a scratch
/// directory of their own.
struct killed_on_v1 {
  std::string dir;
  std::vector<std::string> ids;

  killed_on_v1() {
    REQUIRE(!env_or_empty("STEPWISE_TEST_CHILD").empty());
    char tmpl[] = "/tmp/stepwise-version-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    ids = started_then_killed(dir, 4);
  }

  ~killed_on_v1() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  /// Runs the child in `mode` until it exits on its own (nothing active
  /// is left), and opens the store it leaves.
  store_ptr restarted_as(const std::string& mode) {
    auto pid = spawn({env_or_empty("STEPWISE_TEST_CHILD"), "version", dir + "/ops.db", effects(),
                      dir + "/acked", mode});
    REQUIRE(exited_zero(reap(pid)));
    auto st = open_store("sqlite:" + dir + "/ops.db");
    REQUIRE(st);
    return *st;
  }

  std::string effects() const {
    return dir + "/effects";
  }
};

operation loaded(store& st, const std::string& id) {
  auto op = st.load(id);
  REQUIRE(op);
  REQUIRE(*op);
  return **op;
}

} // namespace

TEST_CASE("operations started on v1 finish on v1 after a SIGKILL and v2",
          "[durability][versions]") {
  killed_on_v1 run;
  auto st = run.restarted_as("both");
  for (auto& id : run.ids) {
    auto op = loaded(*st, id);
    CHECK(op.state == op_state::succeeded);
    CHECK(op.workflow_version == 1);
    // (`a` may have run twice: a kill between its effect and its checkpoint.)
    auto ran = steps_run(run.effects(), id);
    CHECK(ran.count("a") >= 1);
    CHECK(ran.count("b1") == 1);
    CHECK(ran.count("b2") == 0);
  }
}

TEST_CASE("operations whose version is gone after a SIGKILL fail, naming it",
          "[durability][versions]") {
  killed_on_v1 run;
  // The child exits once nothing is active: the operations ended, none hangs.
  auto st = run.restarted_as("v2");
  auto events = st->events_after(0, 100'000);
  REQUIRE(events);
  for (auto& id : run.ids) {
    auto op = loaded(*st, id);
    CHECK(op.state == op_state::failed);
    CHECK(op.error
          == "unknown workflow 'pinned' version 1: not registered in this process "
             "(registered: 2)");
    auto ran = steps_run(run.effects(), id);
    CHECK(ran.count("b1") == 0);
    CHECK(ran.count("b2") == 0);
    int failed = 0, terminal = 0;
    for (auto& e : *events)
      if (e.operation_id == id) {
        failed += e.type == event_type::operation_failed;
        terminal += is_terminal(e.type);
      }
    CHECK(failed == 1);
    CHECK(terminal == 1);
  }
}
