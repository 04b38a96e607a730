// engine/admission: rounds planned over the rows of the queue.
#include <catch2/catch.hpp>

#include <map>

#include "engine/admission.hpp"
#include "tests/engine/engine_fixtures.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::t0;

TEST_CASE("an admission round admits by key and limit in creation order", "[engine][admission]") {
  using a = admission;
  std::vector<admission_row> rows{
    {"o1", "prov", "k1", a::admitted, op_state::in_progress, ""},
    {"o2", "deprov", "k1", a::queued, op_state::pending, ""},
    {"o3", "prov", "k1", a::queued, op_state::pending, "o2"},
    {"o4", "prov", "k2", a::queued, op_state::pending, ""},
    {"o5", "prov", "k3", a::queued, op_state::pending, ""},
    {"o6", "prov", "", a::queued, op_state::pending, ""},
    {"o7", "deprov", "k4", a::admitted, op_state::pending, ""},
  };
  auto round = plan_round(rows, {{"prov", 2}}, time_point{});
  // o4 takes prov's second slot; o5 and o6 wait for a slot, in order; o2
  // and o3 wait for k1 (o3 behind o2, which it already knew).
  std::map<std::string, std::string> changed;
  for (auto& u : round.updates)
    changed[u.id] = u.admission == a::admitted ? "admitted" : u.blocked_by;
  CHECK(changed
        == std::map<std::string, std::string>{
          {"o2", "o1"}, {"o4", "admitted"}, {"o5", "limit:prov"}, {"o6", "limit:prov"}});
  CHECK(round.events.size() == 3); // o2, o5, o6: blockers that changed
  for (auto& e : round.events)
    CHECK(e.type == event_type::operation_queued);
  CHECK(round.startable == std::vector<std::string>{"o4", "o7"});
  CHECK(round.counts["prov"].running == 2);
  CHECK(round.counts["prov"].queued == 3);
  CHECK(round.counts["deprov"].running == 1);
  CHECK(round.counts["deprov"].queued == 1);
}

TEST_CASE("a round names what each waits for and the revision of each startable one",
          "[engine][admission]") {
  using a = admission;
  std::vector<admission_row> rows{
    {"o1", "w", "k", a::admitted, op_state::pending, "", 4},
    {"o2", "w", "k", a::queued, op_state::pending, "", 1},
    {"o3", "w", "k", a::queued, op_state::pending, "", 2},
  };
  auto round = plan_round(rows, {}, t0);
  // o1 holds k and has not started: its owner starts it, as of revision 4.
  CHECK(round.startable == std::vector<std::string>{"o1"});
  CHECK(round.startable_revisions == std::vector<int64_t>{4});
  // Each waiting one names the one right ahead with its key.
  std::map<std::string, std::string> blocked;
  for (auto& u : round.updates)
    blocked[u.id] = u.blocked_by;
  CHECK(blocked == std::map<std::string, std::string>{{"o2", "o1"}, {"o3", "o2"}});
  // The same rows again: nothing changed, no event.
  rows[1].blocked_by = "o1";
  rows[2].blocked_by = "o2";
  auto again = plan_round(rows, {}, t0);
  CHECK(again.updates.empty());
  CHECK(again.events.empty());
}
