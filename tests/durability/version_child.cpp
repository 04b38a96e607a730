// The process that the version test kills and restarts with other
// definitions of workflow `pinned`.
//
// usage: test_child version DB EFFECTS ACKED start N  (v1 only; start N operations,
//                                                      which hold at `hold`; run on)
//        test_child version DB EFFECTS ACKED both     (v1 and v2; exit when all done)
//        test_child version DB EFFECTS ACKED v2       (v2 only; exit when all done)
//   EFFECTS lines: "<op> <step> <attempt>"
#include <string>

#include "tests/durability/child_main.hpp"
#include "tests/test_child.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

int version_child(int argc, char** argv) {
  auto args = test::parse_child_args(argc, argv, 1);
  if (!args)
    return test::exit_usage;
  auto& mode = args->own[0];
  if (mode == "start" && args->own.size() < 2)
    return test::exit_usage;
  // `hold` lets operations through only once v2 exists: until then they
  // wait in it (a durable retry), where the kill finds them.
  bool release = mode != "start";
  auto hold = make_step(
    "hold", [release](step_context&) { return release ? done() : retry_after(20ms, "held"); });
  test::child_setup s;
  if (mode != "v2")
    s.workflows.push_back(workflow("pinned", 1)
                            .step(1, test::effect_step("a"))
                            .step(2, hold)
                            .step(3, test::effect_step("b1")));
  if (mode != "start")
    s.workflows.push_back(
      workflow("pinned", 2).step(1, test::effect_step("a")).step(2, test::effect_step("b2")));
  s.engine.store_uri = "sqlite:" + args->store;
  s.start_workflow = "pinned";
  s.starts = mode == "start" ? std::stoi(args->own[1]) : 0;
  s.exit_when_idle = mode != "start";
  s.idle_within = 60s;
  return test::run_child(*args, std::move(s));
}
