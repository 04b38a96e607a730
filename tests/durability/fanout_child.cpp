// The process that the fan-out durability test kills. Each run starts one
// parent whose first step starts N children (one step each, at most 250
// at once), then waits for all of them; every run of that step is an
// effect line "<op> fan <attempt>", every child's step "<op> work <attempt>".
//
// usage: test_child fanout DB EFFECTS ACKED run N     (start a parent, run on)
//        test_child fanout DB EFFECTS ACKED finish N  (resume, exit when all done)
#include <string>

#include "tests/durability/child_main.hpp"
#include "tests/test_child.hpp"

using namespace stepwise;

int fanout_child(int argc, char** argv) {
  auto args = test::parse_child_args(argc, argv, 2);
  if (!args)
    return test::exit_usage;
  auto& mode = args->own[0];
  auto n = std::stoi(args->own[1]);
  test::child_setup s;
  s.workflows.push_back(std::move(workflow("fanout", 1)
                                    .step(1, make_step("fan",
                                                       [n](step_context& ctx) {
                                                         test::record_effect(
                                                           ctx.operation_id() + " fan "
                                                           + std::to_string(ctx.attempt()));
                                                         for (int i = 0; i < n; ++i)
                                                           ctx.start_child("leaf", {{"i", i}});
                                                         return done();
                                                       }))
                                    .step(2, await_children("join", "fan"))
                                    .step(3, test::effect_step("end"))));
  s.workflows.push_back(
    std::move(workflow("leaf", 1).step(1, test::effect_step("work")).limit(250)));
  s.engine.store_uri = "sqlite:" + args->store;
  s.start_workflow = "fanout";
  s.starts = mode == "run" ? 1 : 0;
  // Killed while running; the last run finishes what is left.
  s.exit_when_idle = mode == "finish";
  return test::run_child(*args, std::move(s));
}
