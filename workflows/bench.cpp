#include "workflows/bench.hpp"

#include <mutex>
#include <unordered_map>

namespace stepwise::workflows {

namespace {

int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

void record(step_context& ctx, boost::json::object extra = {}) {
  extra["op"] = ctx.operation_id();
  extra["step"] = ctx.step_name();
  extra["t"] = wall_us();
  ctx.data()[ctx.step_name()] = std::move(extra);
}

step_def plain(const std::string& name, bool here) {
  return make_step(name,
                   [](step_context& ctx) {
                     record(ctx);
                     return done();
                   })
    .running_inline(here);
}

/// When each operation's failing attempt ran. In memory on purpose, as
/// benchmarks.md says: the second attempt measures its own lateness.
struct fail_times {
  std::mutex mtx;
  std::unordered_map<std::string, int64_t> at;
};

/// Adds the four workloads' workflows, their steps on the workers or
/// (`here`) inline on the operations' actors, named with `suffix`.
void add_workflows(registry& reg, bool here, const std::string& suffix, duration nap) {
  workflow steps("bench_steps" + suffix, 1);
  for (int i = 1; i <= 5; ++i)
    steps.step(i, plain("s" + std::to_string(i), here));
  (void)reg.add(std::move(steps));

  auto times = std::make_shared<fail_times>();
  workflow retry("bench_retry" + suffix, 1);
  retry.step(1, plain("s1", here)).step(2, plain("s2", here));
  retry.step(3, make_step("s3", [times](step_context& ctx) {
                  auto now = wall_us();
                  if (ctx.attempt() == 1) {
                    std::lock_guard<std::mutex> g{times->mtx};
                    times->at[ctx.operation_id()] = now;
                    return retry_after(std::chrono::milliseconds(100), "planned failure");
                  }
                  int64_t failed_at;
                  {
                    std::lock_guard<std::mutex> g{times->mtx};
                    failed_at = times->at[ctx.operation_id()];
                    times->at.erase(ctx.operation_id());
                  }
                  record(ctx, {{"late_us", now - failed_at - 100000}});
                  return done();
                }).running_inline(here));
  retry.step(4, plain("s4", here)).step(5, plain("s5", here));
  (void)reg.add(std::move(retry));

  workflow timers("bench_timers" + suffix, 1);
  timers.step(1, plain("s1", here)).step(2, make_sleep("sleep", nap)).step(3, plain("s2", here));
  (void)reg.add(std::move(timers));

  workflow sleepers("bench_sleepers" + suffix, 1);
  sleepers.step(1, plain("s1", here))
    .step(2, make_sleep("sleep", std::chrono::hours(1)))
    .step(3, plain("s2", here));
  (void)reg.add(std::move(sleepers));

  // The streams workload's operation: one step, so that each start makes
  // few events for every open stream to carry.
  workflow one("bench_one" + suffix, 1);
  one.step(1, plain("s1", here));
  (void)reg.add(std::move(one));
}

} // namespace

registry bench_workflows(duration timer_sleep) {
  registry reg;
  add_workflows(reg, false, "", timer_sleep);
  add_workflows(reg, true, "_inline", timer_sleep);
  return reg;
}

std::string bench_workflow_of(const std::string& workload, bool inline_steps) {
  std::string name;
  if (workload == "steps" || workload == "retry" || workload == "timers" || workload == "sleepers")
    name = "bench_" + workload;
  if (!name.empty() && inline_steps)
    name += "_inline";
  return name;
}

} // namespace stepwise::workflows
