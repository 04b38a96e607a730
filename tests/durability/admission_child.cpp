// The process that the admission durability tests kill: operations with a
// serialization key (two workflows sharing `/name`), a workflow limited to
// two at once, and a pausable one. Steps record each execution, stamped
// with pid and time, in a side-effect file outside the store.
//
// usage: test_child admission STORE EFFECTS ACKED MODE...
//   run N          start N keyed and N limited operations, run until killed
//   finish         resume, exit when nothing is left
//   share N TTL_MS start N keyed and N limited (a store shared by several
//                  processes), exit when no process has anything left
//   pause          start a pausable operation, pause it (ACKED: "<id>",
//                  then "asked <id>"), run until killed
//   hold ID        wait until ID is paused and no operation has an actor
//                  (ACKED: "held <id>"), run until killed
//   resume ID      resume ID, exit when nothing is left
//   EFFECTS lines: "<op> <step> <attempt> <pid> <wall-clock µs>"
#include <string>
#include <thread>

#include "tests/durability/child_main.hpp"
#include "tests/test_child.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

namespace {

constexpr int exit_script_failed = 6;

/// Operations with a key: two workflows serialized on the same `/name`,
/// napping `keyed_nap` between their steps.
void add_keyed(test::child_setup& s, std::chrono::milliseconds keyed_nap) {
  for (auto name : {"provision", "deprovision"})
    s.workflows.push_back(workflow(name, 1)
                            .step(1, test::effect_step("a", std::nullopt, 5ms))
                            .step(2, make_sleep("nap", keyed_nap))
                            .step(3, test::effect_step("b"))
                            .serialize_by("/name"));
  s.workflows.push_back(workflow("limited", 1)
                          .step(1, test::effect_step("a", std::nullopt, 5ms))
                          .step(2, make_sleep("nap", 40ms))
                          .step(3, test::effect_step("b"))
                          .limit(2));
}

/// N operations of each kind, interleaved; keys k0 and k1 alternate.
void add_starts(test::child_setup& s, int n) {
  for (int i = 0; i < n; ++i) {
    auto wf = i % 4 < 2 ? "provision" : "deprovision";
    s.more_starts.push_back(
      {wf, std::nullopt, {{"name", "k" + std::to_string(i % 2)}}, {}, std::nullopt});
    s.more_starts.push_back({"limited", std::nullopt, {{"i", i}}, {}, std::nullopt});
  }
}

/// Polls `pred` every 10 ms for at most 60 s.
template <class Pred>
bool within_a_minute(Pred pred) {
  auto until = std::chrono::steady_clock::now() + 60s;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until)
      return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

int pause_one(engine& eng) {
  auto res = eng.start({"pausable", std::nullopt, {}, {}, std::nullopt});
  if (!res)
    return exit_script_failed;
  auto id = res->op.id;
  test::acknowledge(id);
  if (!eng.pause(id))
    return exit_script_failed;
  test::acknowledge("asked " + id);
  return 0;
}

int hold(engine& eng, const std::string& id) {
  auto paused_without_actor = [&] {
    auto op = eng.get(id);
    return eng.ready() && op && op->state == op_state::paused
           && eng.stats().operations_live.load() == 0;
  };
  if (!within_a_minute(paused_without_actor)) {
    auto op = eng.get(id);
    test::acknowledge("wrong " + id + " " + (op ? std::string{to_string(op->state)} : "gone")
                      + " live=" + std::to_string(eng.stats().operations_live.load()));
    return exit_script_failed;
  }
  test::acknowledge("held " + id);
  return 0;
}

} // namespace

int admission_child(int argc, char** argv) {
  auto args = test::parse_child_args(argc, argv, 1);
  if (!args)
    return test::exit_usage;
  auto& own = args->own;
  auto& mode = own[0];
  test::child_setup s;
  s.stamp = test::effect_stamp::pid_and_time;
  // Shared, each key's queue is drained slower than both processes fill
  // it, so the victim still has keyed operations queued when it is killed
  // however fast or slow the machine is.
  add_keyed(s, mode == "share" ? 150ms : 40ms);
  s.workflows.push_back(workflow("pausable", 1)
                          .step(1, test::effect_step("a", std::nullopt, 100ms))
                          .step(2, make_sleep("nap", 40ms))
                          .step(3, test::effect_step("b")));
  s.engine.store_uri = args->store;
  // The naps passivate: queued and sleeping operations cross restarts
  // without an actor.
  s.engine.passivate_after = 35ms;
  s.idle_within = 120s;
  if (mode == "run" && own.size() == 2) {
    add_starts(s, std::stoi(own[1]));
    s.exit_when_idle = false;
  } else if (mode == "finish") {
  } else if (mode == "share" && own.size() == 3) {
    add_starts(s, std::stoi(own[1]));
    s.engine.lease_ttl = std::chrono::milliseconds(std::stoi(own[2]));
    // Rounds of the other process admit ours: we look this often.
    s.engine.admission_poll = 200ms;
    s.start_gap = 20ms; // the two processes' operations alternate in each queue
  } else if (mode == "pause") {
    s.script = pause_one;
    s.exit_when_idle = false;
  } else if (mode == "hold" && own.size() == 2) {
    s.script = [id = own[1]](engine& eng) { return hold(eng, id); };
    s.exit_when_idle = false;
  } else if (mode == "resume" && own.size() == 2) {
    s.script = [id = own[1]](engine& eng) { return eng.resume(id) ? 0 : exit_script_failed; };
  } else {
    return test::exit_usage;
  }
  return test::run_child(*args, std::move(s));
}
