// Kills a child process with SIGKILL while parents fan out to 1,000 child
// operations each (a kill lands while the children are being created, or
// between their creation and the parent's checkpoint, or while they run),
// many times; then checks that every parent has exactly one child per slot,
// the ones it recorded, and that everything finished.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/durability/child_process.hpp"

#include "engine/children.hpp"
#include "storage/open_store.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

constexpr int fan = 1000;

/// Returns how many times a fan-out step ran, per parent, and in all.
std::map<std::string, int> fan_runs(const std::string& effects, size_t* total = nullptr) {
  std::map<std::string, int> out;
  size_t all = 0;
  for (auto& l : lines(effects)) {
    std::istringstream in{l};
    std::string id, step;
    in >> id >> step;
    if (step == "fan") {
      out[id] += 1;
      ++all;
    }
  }
  if (total)
    *total = all;
  return out;
}

/// Returns every operation `f` lists, all pages.
std::vector<operation> list_all(store& st, list_filter f) {
  std::vector<operation> out;
  f.limit = 1000;
  for (;;) {
    auto page = st.list(f);
    REQUIRE(page);
    for (auto& op : page->items)
      out.push_back(std::move(op));
    if (page->next_cursor.empty())
      return out;
    f.cursor = page->next_cursor;
  }
}

} // namespace

TEST_CASE("SIGKILL during fan-outs of 1,000 children never makes a second child for a slot",
          "[durability][children]") {
  auto child = env_or_empty("STEPWISE_TEST_CHILD");
  REQUIRE(!child.empty());
  char tmpl[] = "/tmp/stepwise-fanout-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  std::string dir = tmpl;
  auto db = dir + "/ops.db", effects = dir + "/effects", acked = dir + "/acked";
  auto n = std::to_string(fan);
  std::mt19937 rng{std::random_device{}()};
  // After a fan-out step ran: its 1,000 creates are one or two commits,
  // then the parent's own.
  std::uniform_int_distribution<int> kill_after_ms{0, 80};
  auto cycles = crash_cycles(6);
  for (int i = 0; i < cycles; ++i) {
    size_t before = 0;
    fan_runs(effects, &before);
    auto pid = spawn({child, "fanout", db, effects, acked, "run", n});
    REQUIRE(pid > 0);
    // A fan-out step runs: this run's parent's, or one a crash interrupted
    // run again (the case this test is about).
    auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    size_t now = before;
    while (now == before && std::chrono::steady_clock::now() < limit) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      fan_runs(effects, &now);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms(rng)));
    ::kill(pid, SIGKILL);
    auto status = reap(pid);
    INFO("cycle " << i << " status " << status);
    CHECK(killed_or_clean(status));
  }
  auto pid = spawn({child, "fanout", db, effects, acked, "finish", n});
  REQUIRE(exited_zero(reap(pid)));

  auto st = open_store("sqlite:" + db);
  REQUIRE(st);
  auto& store = **st;
  list_filter parents_only;
  parents_only.workflow = "fanout";
  auto parents = list_all(store, parents_only);
  // Every acknowledged parent exists (and others may: started, then killed
  // before the acknowledgement).
  std::set<std::string> ids;
  for (auto& p : parents)
    ids.insert(p.id);
  for (auto& id : lines(acked))
    CHECK(ids.count(id) == 1);
  REQUIRE(!parents.empty());
  auto runs = fan_runs(effects);
  size_t leaves = 0, reruns = 0;
  for (auto& p : parents) {
    INFO("parent " << p.id);
    CHECK(p.state == op_state::succeeded);
    reruns += runs[p.id] > 1 ? 1 : 0;
    list_filter mine;
    mine.parent = p.id;
    auto kids = list_all(store, mine);
    leaves += kids.size();
    // One child per slot, and the ones the parent recorded.
    CHECK(kids.size() == static_cast<size_t>(fan));
    auto& recorded = p.data.at("children").at("fan").as_object();
    CHECK(recorded.size() == static_cast<size_t>(fan));
    std::set<std::string> slots;
    for (auto& k : kids) {
      auto slot = parse_child_key(k.idempotency_key);
      REQUIRE(slot);
      CHECK(slot->parent == p.id);
      CHECK(slot->step == "fan");
      CHECK(slots.insert(slot->key).second);
      auto* id = recorded.if_contains(slot->key);
      REQUIRE(id);
      CHECK(id->as_string() == k.id);
      CHECK(k.state == op_state::succeeded);
    }
    CHECK(p.data.at("children_results").at("fan").as_object().size() == static_cast<size_t>(fan));
  }
  // Every operation is a parent or one of their children.
  auto everything = list_all(store, list_filter{});
  CHECK(everything.size() == parents.size() + leaves);
  auto active = store.load_active();
  REQUIRE(active);
  CHECK(active->empty());
  // The event log has no gap, and one terminal event per operation.
  auto log = read_event_log(store);
  REQUIRE(log.error.empty());
  CHECK(log.first_gap == 0);
  for (auto& op : everything)
    CHECK(log.terminal[op.id] == 1);
  // Informational: how many fan-outs ran again after a crash.
  WARN("parents: " << parents.size() << ", children: " << leaves
                   << ", fan-out steps run again after a kill: " << reruns);
  std::system(("rm -rf " + dir).c_str());
}
