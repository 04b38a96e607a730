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

step_def plain(const std::string& name) {
  return make_step(name, [](step_context& ctx) {
    record(ctx);
    return done();
  });
}

/// When each operation's failing attempt ran. In memory on purpose, as
/// benchmarks.md says: the second attempt measures its own lateness.
struct fail_times {
  std::mutex mtx;
  std::unordered_map<std::string, int64_t> at;
};

} // namespace

registry bench_workflows() {
  registry reg;
  workflow steps("bench_steps", 1);
  for (int i = 1; i <= 5; ++i)
    steps.step(i, plain("s" + std::to_string(i)));
  (void) reg.add(std::move(steps));

  auto times = std::make_shared<fail_times>();
  workflow retry("bench_retry", 1);
  retry.step(1, plain("s1")).step(2, plain("s2"));
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
  }));
  retry.step(4, plain("s4")).step(5, plain("s5"));
  (void) reg.add(std::move(retry));

  workflow timers("bench_timers", 1);
  timers.step(1, plain("s1"))
    .step(2, make_sleep("sleep", std::chrono::seconds(1)))
    .step(3, plain("s2"));
  (void) reg.add(std::move(timers));

  workflow sleepers("bench_sleepers", 1);
  sleepers.step(1, plain("s1"))
    .step(2, make_sleep("sleep", std::chrono::hours(1)))
    .step(3, plain("s2"));
  (void) reg.add(std::move(sleepers));
  return reg;
}

std::string bench_workflow_of(const std::string& workload) {
  if (workload == "steps")
    return "bench_steps";
  if (workload == "retry")
    return "bench_retry";
  if (workload == "timers")
    return "bench_timers";
  if (workload == "sleepers")
    return "bench_sleepers";
  return {};
}

} // namespace stepwise::workflows
