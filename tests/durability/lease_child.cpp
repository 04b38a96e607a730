// One of the processes that the takeover test runs on one PostgreSQL
// schema. It starts N operations of a mixed workflow (steps, a retry, a
// durable sleep), records every step execution in a side-effect file
// outside the store, and runs until no operation of any process is left.
//
// usage: test_child lease URI EFFECTS ACKED N TTL_MS
//   EFFECTS lines: "<op> <step> <attempt> <pid> <wall-clock µs>"
//   ACKED lines:   "<op>" for every start the engine acknowledged
#include <string>

#include "tests/durability/child_main.hpp"
#include "tests/test_child.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

int lease_child(int argc, char** argv) {
  auto args = test::parse_child_args(argc, argv, 2);
  if (!args)
    return test::exit_usage;
  test::child_setup s;
  // The test tells which process ran an attempt, and when.
  s.stamp = test::effect_stamp::pid_and_time;
  s.workflows.push_back(workflow("mixed", 1)
                          .step(1, test::effect_step("a"))
                          .step(2, test::effect_step("b", 100ms))
                          .step(3, make_sleep("nap", 600ms))
                          .step(4, test::effect_step("c"))
                          .step(5, test::effect_step("d")));
  s.engine.store_uri = args->store;
  s.engine.lease_ttl = std::chrono::milliseconds(std::stoi(args->own[1]));
  // The nap passivates: a taken-over sleeper's timer is re-armed from the
  // store, not from a live actor.
  s.engine.passivate_after = 300ms;
  s.start_workflow = "mixed";
  s.starts = std::stoi(args->own[0]);
  // Bounded: a takeover that never happens fails the test instead of
  // hanging it.
  s.idle_within = 120s;
  return test::run_child(*args, std::move(s));
}
