// The process that the signal and watched-task durability tests drive and
// kill. It runs two workflows, and serves the test's commands on stdin
// (tests/durability/command_loop.hpp) until told to finish; then it exits
// once no operation of any process is left.
//
// - `signalled`: a (held while the file DIR/gate-<input.gate> is missing,
//   when the input names a gate), wait (signal `go`), after;
// - `watched`: await (the monitor follows task `input.infrastructure_id`
//   on the file driver, tests/durability/file_driver.hpp, or signal
//   `ready` ends the wait, whichever comes first), after.
//
// usage: test_child wait STORE_URI EFFECTS ACKED DIR [LEASE_TTL_MS]
//   EFFECTS lines: "<op> <step> <attempt> <pid> <wall-clock µs>"
#include <unistd.h>

#include <iostream>
#include <thread>

#include "actors/real_clock.hpp"
#include "infra/monitor.hpp"
#include "tests/durability/child_main.hpp"
#include "tests/durability/command_loop.hpp"
#include "tests/durability/file_driver.hpp"
#include "tests/test_child.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

namespace {

/// Step `a`: runs once the test opens the operation's gate.
step_def gated(const std::string& dir) {
  auto fx = test::effect_step("a");
  return make_step("a", [dir, run = fx.run](step_context& ctx) {
    auto gate = ctx.input().if_contains("gate");
    if (gate != nullptr && gate->is_string()) {
      auto path = dir + "/gate-" + std::string{gate->get_string()};
      auto until = std::chrono::steady_clock::now() + 60s;
      // A blocking step on a worker: it may wait.
      while (::access(path.c_str(), F_OK) != 0) {
        if (std::chrono::steady_clock::now() > until)
          return fail("the gate never opened");
        std::this_thread::sleep_for(5ms);
      }
    }
    return run(ctx);
  });
}

} // namespace

int wait_child(int argc, char** argv) {
  auto args = test::parse_child_args(argc, argv, 1);
  if (!args)
    return test::exit_usage;
  auto dir = args->own[0];
  test::child_setup s;
  s.stamp = test::effect_stamp::pid_and_time;
  s.engine.store_uri = args->store;
  if (args->own.size() > 1)
    s.engine.lease_ttl = std::chrono::milliseconds(std::stoi(args->own[1]));
  s.with_system = [dir](caf::actor_system& sys, test::child_setup& setup) {
    setup.engine.clock = std::make_shared<real_clock>(sys);
    infra::monitor_options opts;
    // Polls every 10 ms at most: a completed task is reported about as
    // soon as a signal sent at the same time is stored, so the two race.
    opts.initial_backoff = 5ms;
    opts.max_backoff = 10ms;
    opts.deadline = 10min;
    auto mon =
      infra::spawn_monitor(sys, std::make_shared<test::file_driver>(dir), setup.engine.clock, opts);
    setup.workflows.push_back(workflow("signalled", 1)
                                .step(1, gated(dir))
                                .step(2, await_signal("wait", "go"))
                                .step(3, test::effect_step("after")));
    setup.workflows.push_back(workflow("watched", 1)
                                .step(1, infra::make_monitor_step("await", mon).or_signal("ready"))
                                .step(2, test::effect_step("after")));
  };
  s.script = [](engine& eng) {
    test::serve_commands(eng, std::cin, std::cout);
    return 0;
  };
  // Bounded: work that never ends fails the test instead of hanging it.
  s.idle_within = 120s;
  return test::run_child(*args, std::move(s));
}
