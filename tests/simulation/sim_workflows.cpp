#include "tests/simulation/sim_workflows.hpp"

#include <algorithm>
#include <chrono>

#include "engine/step.hpp"
#include "engine/workflow.hpp"
#include "engine/workflow_json.hpp"

namespace stepwise::sim {

using namespace std::chrono_literals;

const std::vector<std::string> sim_workflow_names = {
  "sim.steps", "sim.signal", "sim.saga",   "sim.keyed", "sim.limited",
  "sim.watch", "sim.parent", "sim.quorum", "sim.child", "sim.tasks"};

std::vector<std::string> signals_of(const std::string& workflow) {
  if (workflow == "sim.signal" || workflow == "sim.keyed")
    return {"go"};
  if (workflow == "sim.watch")
    return {"early"};
  return {};
}

bool takes_part(const std::string& workflow) {
  return workflow == "sim.keyed" || workflow == "sim.limited" || workflow == "sim.child";
}

admission_limits sim_limits() {
  return {{"sim.limited", 2}, {"sim.child", 3}};
}

namespace {

/// The steps of each workflow whose outcome the input plans.
std::vector<std::string> planned_steps(const std::string& workflow) {
  if (workflow == "sim.steps")
    return {"a", "b", "c", "e", "f"};
  if (workflow == "sim.signal")
    return {"a", "b"};
  if (workflow == "sim.saga")
    return {"a", "b", "c"};
  if (workflow == "sim.watch")
    return {"a", "t", "b"};
  if (workflow == "sim.tasks")
    return {"t1", "t2"};
  return {"a", "b"};
}

/// Checks, as a body starts, that its step has not already succeeded in
/// the store (a completed step never runs again); then records the attempt
/// in the data.
void enter(sim_world_state& w, step_context& ctx) {
  w.bodies += 1;
  w.drain.body(w.log, ctx);
  if (ctx.stop().stop_requested())
    return; // an abandoned attempt that a worker reached late
  auto stored = w.store.peek(ctx.operation_id());
  if (stored) {
    for (auto& rec : stored->steps)
      if (rec.name == ctx.step_name())
        w.log.check_lazy(rec.state != step_state::succeeded, [&] {
          return "step " + ctx.step_name() + " of " + ctx.operation_id() + " ran again (attempt "
                 + std::to_string(ctx.attempt()) + ") after it succeeded";
        });
  }
  ctx.data()[ctx.step_name()] = ctx.attempt();
}

/// A blocking body returns as it starts: its attempt has finished (one
/// abandoned before it started has no result to write).
void finished(sim_world_state& w, step_context& ctx) {
  if (!ctx.stop().stop_requested())
    w.drain.finished(w.store, ctx.operation_id(), ctx.step_name(), ctx.attempt());
}

step_def blocking(std::shared_ptr<sim_world_state> w, std::string name) {
  return make_step(name, [w](step_context& ctx) {
    enter(*w, ctx);
    finished(*w, ctx);
    return planned(ctx.input(), ctx.step_name(), ctx.attempt());
  });
}

step_def inline_step(std::shared_ptr<sim_world_state> w, std::string name) {
  return blocking(std::move(w), std::move(name)).running_inline();
}

step_def async_step(std::shared_ptr<sim_world_state> w, std::string name) {
  return make_async_step(name, [w](async_call call) {
    enter(*w, call.context());
    w->calls.push_back(std::move(call));
  });
}

/// A blocking step that starts the children its input lists (`kids`: their
/// inputs; `named` ones get a key of their own, the others their index)
/// when its planned outcome is done.
step_def fan_out(std::shared_ptr<sim_world_state> w, std::string name) {
  return make_step(name, [w](step_context& ctx) {
    enter(*w, ctx);
    finished(*w, ctx);
    auto result = planned(ctx.input(), ctx.step_name(), ctx.attempt());
    auto* kids = ctx.input().if_contains("kids");
    if (result.what != outcome::kind::done || !kids || !kids->is_array())
      return result;
    auto& all = kids->as_array();
    for (size_t i = 0; i < all.size(); ++i) {
      auto& kid = all[i].as_object();
      ctx.start_child("sim.child", kid, kid.contains("named") ? "k" + std::to_string(i) : "");
    }
    return result;
  });
}

step_fn compensation(std::shared_ptr<sim_world_state> w) {
  return [w](step_context&) {
    w->bodies += 1;
    return done();
  };
}

retry_policy attempts(int32_t n) {
  retry_policy p;
  p.initial_interval = 100ms;
  p.max_attempts = n;
  return p;
}

} // namespace

boost::json::object random_input(const std::string& workflow, std::mt19937_64& rng) {
  auto pick = [&rng](uint64_t n) { return rng() % n; };
  boost::json::object plan;
  for (auto& step : planned_steps(workflow)) {
    boost::json::array attempts_out;
    auto n = pick(4) == 0 ? pick(4) : 0; // most steps succeed at once
    for (uint64_t i = 0; i < n; ++i)
      attempts_out.emplace_back(pick(8) == 0 ? -1 : static_cast<int64_t>(50 + pick(2000)));
    if (!attempts_out.empty())
      plan[step] = std::move(attempts_out);
  }
  boost::json::object input{{"plan", std::move(plan)}};
  if (workflow == "sim.keyed")
    input["key"] = "k" + std::to_string(pick(3));
  if (workflow == "sim.child" && pick(2) == 0)
    input["named"] = true;
  if (workflow == "sim.parent" || workflow == "sim.quorum") {
    boost::json::array kids;
    for (uint64_t i = 0, n = 1 + pick(3); i < n; ++i)
      kids.emplace_back(random_input("sim.child", rng));
    input["kids"] = std::move(kids);
  }
  return input;
}

outcome planned(const boost::json::object& input, const std::string& step, int32_t attempt) {
  auto* plan = input.if_contains("plan");
  if (!plan || !plan->is_object())
    return done();
  auto* list = plan->as_object().if_contains(step);
  if (!list || !list->is_array() || attempt < 1
      || static_cast<size_t>(attempt) > list->as_array().size())
    return done();
  auto code = list->as_array()[static_cast<size_t>(attempt - 1)].as_int64();
  if (code < 0)
    return fail("planned failure of " + step + " at attempt " + std::to_string(attempt));
  return retry_after(std::chrono::milliseconds(code), "planned retry of " + step);
}

watcher_actor::behavior_type sim_watcher(watcher_actor::pointer,
                                         std::shared_ptr<sim_world_state> w) {
  return {
    [w](watch_atom, watch_request& req) {
      auto& all = w->watches;
      for (auto& x : all)
        if (x.operation_id == req.operation_id) {
          x = std::move(req);
          return;
        }
      all.push_back(std::move(req));
    },
    [w](unwatch_atom, const std::string& id, int32_t attempt) {
      auto& all = w->watches;
      all.erase(std::remove_if(all.begin(), all.end(),
                               [&](const watch_request& x) {
                                 return x.operation_id == id && x.attempt == attempt;
                               }),
                all.end());
    },
  };
}

watch_reply settle(const watch_request& req) {
  auto out = answer_watch(req, {});
  auto* plan = req.task.if_contains("input");
  out.result.result =
    plan && plan->is_object() ? planned(plan->as_object(), req.step, req.attempt) : done();
  out.result.data = {{"watched", req.attempt}};
  return out;
}

/// A workflow defined as data whose steps workers do (sim_tasks.hpp): a
/// task whose worker must beat, with a compensation; a sleep; a task that
/// must be taken and ended in time.
workflow tasks_workflow(sim_log& log, caf::actor broker) {
  auto def = boost::json::parse(R"({"steps": [
    {"name": "t1", "kind": "task", "queue": "simq", "heartbeat_timeout": "1s",
     "compensate": "undo", "retry": {"max_attempts": 3, "initial": "100ms"}},
    {"name": "s", "kind": "sleep", "duration": "500ms"},
    {"name": "t2", "kind": "task", "queue": "simq", "start_timeout": "4s", "timeout": "6s",
     "retry": {"max_attempts": 3, "initial": "100ms"}}]})");
  auto wf = workflow_from_json("sim.tasks", 1, def.as_object(), std::move(broker));
  log.check_lazy(static_cast<bool>(wf), [&] {
    return "the simulation's data workflow is invalid: " + to_string(wf.error());
  });
  return wf ? std::move(*wf) : workflow("sim.tasks", 1);
}

registry sim_workflows(std::shared_ptr<sim_world_state> w, watcher_actor watcher,
                       caf::actor broker) {
  registry reg;
  workflow steps("sim.steps", 1);
  steps.step(10, blocking(w, "a").with_policy(attempts(3)))
    .step(20, inline_step(w, "b"))
    .step(30, async_step(w, "c").with_timeout(2s))
    .step(40, make_sleep("d", 1500ms))
    .step(50, blocking(w, "e").with_policy(attempts(2)).as_best_effort())
    .step(60, inline_step(w, "f"));
  workflow signal("sim.signal", 1);
  signal.step(10, blocking(w, "a"))
    .step(20, await_signal("w", "go", 5s))
    .step(30, blocking(w, "b"));
  workflow saga("sim.saga", 1);
  saga.step(10, blocking(w, "a").with_compensation(compensation(w)))
    .step(20, async_step(w, "b").with_timeout(2s).with_compensation(compensation(w)))
    .step(30, blocking(w, "c").with_policy(attempts(2)));
  workflow keyed("sim.keyed", 1);
  keyed.step(10, blocking(w, "a"))
    .step(20, await_signal("w", "go"))
    .step(30, inline_step(w, "b"))
    .serialize_by("/key");
  workflow limited("sim.limited", 1);
  limited.step(10, blocking(w, "a"))
    .step(20, make_sleep("s", 2s))
    .step(30, inline_step(w, "b"))
    .limit(2);
  workflow watch("sim.watch", 1);
  watch.step(10, blocking(w, "a"))
    .step(20, await_task("t", watcher,
                         [w](step_context& ctx) -> caf::expected<boost::json::object> {
                           w->bodies += 1;
                           return boost::json::object{{"input", ctx.input()}};
                         })
                .or_signal("early")
                .with_wait_timeout(10s)
                .with_policy(attempts(2)))
    .step(30, inline_step(w, "b"));
  // A fan-out waiting for all its children (a failed one fails it), and
  // one waiting for any of them, failures counted as ended.
  workflow parent("sim.parent", 1);
  parent.step(10, fan_out(w, "a")).step(20, await_children("w", "a")).step(30, inline_step(w, "b"));
  workflow quorum("sim.quorum", 1);
  quorum.step(10, fan_out(w, "a").abandoning_children())
    .step(20, await_children("w", "a").needing(1).accepting_failures().with_wait_timeout(20s))
    .step(30, inline_step(w, "b"));
  workflow child("sim.child", 1);
  child.step(10, blocking(w, "a").with_policy(attempts(2)))
    .step(20, async_step(w, "b").with_timeout(2s))
    .limit(3);
  auto tasks = tasks_workflow(w->log, std::move(broker));
  for (auto* wf :
       {&steps, &signal, &saga, &keyed, &limited, &watch, &parent, &quorum, &child, &tasks}) {
    auto added = reg.add(std::move(*wf));
    w->log.check_lazy(static_cast<bool>(added), [&] {
      return "a simulation workflow is invalid: " + to_string(added.error());
    });
  }
  return reg;
}

} // namespace stepwise::sim
