// The process that the schedules' durability tests kill. Its clock runs
// 100 times faster than the wall clock from BASE (the test's start), so
// that a schedule every second fires a hundred times a second, and a
// restarted process goes on where the killed one was. It creates schedule
// `s` (every 1 s of its time, overlap allow, catch-up all) unless the
// store has it, acknowledges every fire its step runs, and runs until
// killed.
//
// usage: test_child schedule STORE EFFECTS ACKED BASE_US
//   STORE: a SQLite file, or a postgresql:// URI (several processes);
//   EFFECTS lines: "<op> <step> <attempt>"; ACKED lines: "<op>".
#include <atomic>
#include <string>
#include <thread>

#include "actors/virtual_clock.hpp"
#include "tests/durability/child_main.hpp"
#include "tests/test_child.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

namespace {

constexpr int64_t speed = 100;

/// The child's time: BASE plus `speed` times the wall time since BASE.
time_point fast_now(int64_t base_us) {
  auto wall =
    std::chrono::duration_cast<duration>(std::chrono::system_clock::now().time_since_epoch());
  return from_micros(base_us + (wall.count() - base_us) * speed);
}

} // namespace

int schedule_child(int argc, char** argv) {
  auto args = test::parse_child_args(argc, argv, 1);
  if (!args)
    return test::exit_usage;
  auto base = std::stoll(args->own[0]);
  auto clk = std::make_shared<virtual_clock>(fast_now(base));
  // Moves the clock with the wall clock, delivering the timers due; runs
  // until the process is killed.
  std::thread([clk, base] {
    for (;;) {
      std::this_thread::sleep_for(1ms);
      auto target = fast_now(base);
      if (target > clk->now())
        clk->advance(target - clk->now());
    }
  }).detach();
  test::child_setup s;
  auto fx = test::effect_step("a");
  s.workflows.push_back(
    workflow("tick", 1).step(1, make_step("a", [run = fx.run](step_context& ctx) {
                               auto res = run(ctx);
                               test::acknowledge(ctx.operation_id());
                               return res;
                             })));
  auto& store = args->store;
  s.engine.store_uri = store.find("://") != std::string::npos ? store : "sqlite:" + store;
  s.engine.clock = clk;
  s.exit_when_idle = false;
  s.script = [](engine& eng) {
    schedule sched;
    sched.id = "s";
    sched.workflow = "tick";
    sched.every = 1s;
    sched.overlap = overlap_policy::allow;
    sched.catch_up = catch_up_policy::all;
    sched.catch_up_window = 1h;
    auto res = eng.create_schedule(sched); // the same again: the stored one
    return res ? 0 : test::exit_launch_failed;
  };
  return test::run_child(*args, std::move(s));
}
