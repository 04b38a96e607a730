#include "workflows/demo.hpp"

#include <chrono>
#include <string>

namespace stepwise::workflows {

namespace {

using namespace std::chrono_literals;

outcome greet(step_context& ctx) {
  std::string name = "world";
  if (auto v = ctx.input().if_contains("name"); v != nullptr && v->is_string())
    name = std::string(v->get_string());
  ctx.data()["greeting"] = "hello, " + name;
  return done();
}

outcome flaky(step_context& ctx) {
  // Fails the first attempt the way a remote call times out: the engine
  // stores the due time and re-runs the step after the delay.
  if (ctx.attempt() == 1)
    return retry_after(500ms, "simulated transient failure");
  ctx.data()["flaky_attempts"] = ctx.attempt();
  return done();
}

outcome notify(step_context&) {
  return retry_after(200ms, "notification service unavailable (simulated)");
}

outcome finish(step_context& ctx) {
  if (auto v = ctx.input().if_contains("fail"); v != nullptr && v->is_bool() && v->get_bool())
    return fail("asked to fail by the input (\"fail\": true)");
  ctx.data()["finished"] = true;
  return done();
}

} // namespace

workflow demo() {
  retry_policy few;
  few.initial_interval = 200ms;
  few.max_attempts = 3;
  retry_policy twice;
  twice.initial_interval = 200ms;
  twice.max_attempts = 2;
  workflow wf("demo", 1);
  wf.step(10, make_step("greet", greet))
    .step(20, make_step("flaky", flaky).with_policy(few))
    .step(30, make_sleep("pause", demo_pause))
    .step(40, make_step("notify", notify).with_policy(twice).as_best_effort())
    .step(50, make_step("finish", finish))
    .secret("/token");
  return wf;
}

} // namespace stepwise::workflows
