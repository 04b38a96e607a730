// The process that the durability test kills. It runs a workflow whose
// steps record each execution in a side-effect file outside the store,
// and appends every acknowledged operation id to a second file.
//
// usage: test_child crash DB EFFECTS ACKED run N   (start N operations, run on)
//        test_child crash DB EFFECTS ACKED finish  (resume, exit when all done)
//   EFFECTS lines: "<op> <step> <attempt>"
#include <string>

#include "tests/durability/child_main.hpp"
#include "tests/test_child.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

int crash_child(int argc, char** argv) {
  auto args = test::parse_child_args(argc, argv, 1);
  if (!args)
    return test::exit_usage;
  auto& mode = args->own[0];
  if (mode == "run" && args->own.size() < 2)
    return test::exit_usage;
  test::child_setup s;
  s.workflows.push_back(workflow("crashy", 1)
                          .step(1, test::effect_step("a"))
                          .step(2, test::effect_step("b", 30ms))
                          .step(3, make_sleep("nap", 40ms))
                          .step(4, test::effect_step("c"))
                          .step(5, test::effect_step("d")));
  s.engine.store_uri = "sqlite:" + args->store;
  // Passivate even the short sleeps, so that wake-ups cross restarts too.
  s.engine.passivate_after = 35ms;
  s.start_workflow = "crashy";
  s.starts = mode == "run" ? std::stoi(args->own[1]) : 0;
  // Killed while running; the last run finishes what is left.
  s.exit_when_idle = mode == "finish";
  return test::run_child(*args, std::move(s));
}
