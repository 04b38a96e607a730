#include "workflows/update_runtime.hpp"

#include "engine/errc.hpp"
#include "engine/time.hpp"
#include "infra/task_json.hpp"
#include "workflows/infra_steps.hpp"

namespace stepwise::workflows {

namespace {

outcome load_runtime(const read_operation_fn& read, step_context& ctx) {
  if (string_at(ctx.input(), "name").empty() || string_at(ctx.input(), "template").empty())
    return fail("invalid input: \"name\" and \"template\" must be non-empty strings");
  auto res = read_operation_at(read, ctx, "runtime_operation_id");
  if (auto err = std::get_if<infra::error>(&res))
    return err->kind == infra::error_kind::temporary ? retry_after(duration{0}, err->message)
                                                     : fail(err->message);
  auto& op = std::get<operation>(res);
  if (op.workflow != "provision_runtime" && op.workflow != "update_runtime")
    return fail("operation " + op.id + " did not make a runtime");
  auto ids = infra::ids_from_json(op.data.if_contains("infrastructure"));
  if (!ids || !op.data.contains("runtime"))
    return fail("operation " + op.id + " recorded no runtime");
  ctx.data()["previous"] = infra::ids_json(*ids);
  return done();
}

outcome record_update(step_context& ctx) {
  auto ids = infra::ids_from_json(ctx.data().if_contains("infrastructure"));
  if (!ids)
    return fail("no infrastructure was recorded");
  boost::json::object runtime;
  runtime["name"] = string_at(ctx.input(), "name");
  runtime["infrastructure_id"] = ids->infrastructure_id;
  if (auto out = ctx.data().if_contains("outputs"))
    runtime["outputs"] = *out;
  runtime["updated_at"] = format_time(ctx.now());
  ctx.data()["runtime"] = std::move(runtime);
  return done();
}

} // namespace

workflow update_runtime(const infrastructure_deps& deps) {
  auto drv = deps.driver;
  auto read = deps.read_operation;
  auto locate = [read](step_context& ctx) { return provisioning_location(read, ctx); };
  // Both calls start on a worker: the location is read from the store.
  auto create = [drv, locate](async_call call) {
    auto loc = locate(call.context());
    if (auto err = std::get_if<infra::error>(&loc)) {
      call.complete(refused("create", *err));
      return;
    }
    auto& in = call.context().input();
    create_spec spec{string_at(in, "template"),
                     string_at(in, "template_type"),
                     string_at(in, "name"),
                     {},
                     std::get<infra::deployment_location>(loc)};
    if (auto p = in.if_contains("properties"); p != nullptr && p->is_object())
      spec.properties = p->get_object();
    create_once(*drv, call, "infrastructure", std::move(spec));
  };
  auto remove = [drv, locate](async_call call) {
    auto loc = locate(call.context());
    if (auto err = std::get_if<infra::error>(&loc)) {
      call.complete(refused("delete", *err));
      return;
    }
    remove_once(*drv, call, "previous", "deletion", std::get<infra::deployment_location>(loc));
  };
  auto not_gone = [](const step_context& ctx) {
    auto d = ctx.data().if_contains("deletion");
    return d == nullptr || !d->is_object() || !d->get_object().contains("already_gone");
  };
  infra::monitor_source created;
  created.task_key = "infrastructure";
  created.location = locate;
  infra::monitor_source deleted;
  deleted.task_key = "deletion";
  deleted.outputs_key.clear();
  deleted.location = locate;
  workflow wf("update_runtime", 1);
  wf.step(10,
          make_step("load_runtime", [read](step_context& ctx) { return load_runtime(read, ctx); })
            .with_policy(deps.calls))
    .step(
      20,
      make_async_step("create_infrastructure", create).starting_on_worker().with_policy(deps.calls))
    .step(30, infra::make_monitor_step("await_infrastructure", deps.monitor, created))
    .step(40, make_step("record_runtime", record_update))
    // The runtime is replaced once the new one is ready: an old one that
    // will not go leaves the step incomplete (retry runs it again), never
    // the update failed with the instance on its old runtime half-deleted.
    .step(50, make_async_step("delete_previous", remove)
                .starting_on_worker()
                .with_policy(deps.calls)
                .as_best_effort())
    .step(60, infra::make_monitor_step("await_deletion", deps.monitor, deleted)
                .when(not_gone)
                .as_best_effort())
    .serialize_by(runtime_key, "runtime:/name");
  return wf;
}

} // namespace stepwise::workflows
