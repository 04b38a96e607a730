#include "workflows/deprovision_runtime.hpp"

#include "engine/errc.hpp"
#include "infra/task_json.hpp"
#include "workflows/infra_steps.hpp"

namespace stepwise::workflows {

namespace {

outcome load_provisioning(const read_operation_fn& read, step_context& ctx) {
  auto res = read_operation_at(read, ctx, "provision_operation_id");
  if (auto err = std::get_if<infra::error>(&res))
    return err->kind == infra::error_kind::temporary ? retry_after(duration{0}, err->message)
                                                     : fail(err->message);
  auto& op = std::get<operation>(res);
  if (op.workflow != "provision_runtime")
    return fail("operation " + op.id + " is a " + op.workflow
                + " operation, not provision_runtime");
  auto ids = infra::ids_from_json(op.data.if_contains("infrastructure"));
  // An updated runtime's infrastructure is the last update's: the
  // provisioning's was replaced (update_runtime).
  if (auto current = string_at(ctx.input(), "runtime_operation_id");
      !current.empty() && current != op.id) {
    auto res = read(current);
    if (!res)
      return retry_after(duration{0},
                         "cannot read operation " + current + ": " + message_of(res.error()));
    if (!*res || (*res)->workflow != "update_runtime")
      return fail("no update_runtime operation " + current);
    ids = infra::ids_from_json((*res)->data.if_contains("infrastructure"));
  }
  if (!ids)
    return fail("operation " + op.id + " created no infrastructure");
  auto loc = provisioning_location(read, ctx);
  if (auto err = std::get_if<infra::error>(&loc))
    return fail(err->message);
  ctx.data()["target"] =
    boost::json::object{{"provision_operation_id", op.id},
                        {"infrastructure_id", ids->infrastructure_id},
                        {"name", string_at(*op.input, "name")},
                        {"location", std::get<infra::deployment_location>(loc).name}};
  // Only the infrastructure id matters to a delete; the request id of the
  // create is kept for the record.
  ctx.data()["infrastructure"] = infra::ids_json(*ids);
  return done();
}

outcome record_cleanup(const std::string& task, step_context& ctx) {
  auto& cleanups = ctx.data()["cleanups"];
  if (!cleanups.is_object())
    cleanups = boost::json::object{};
  cleanups.get_object()[task] = "done";
  return done();
}

} // namespace

workflow deprovision_runtime(const infrastructure_deps& deps) {
  auto drv = deps.driver;
  auto read = deps.read_operation;
  auto cleanup = deps.cleanup ? deps.cleanup : cleanup_fn{record_cleanup};
  auto locate = [read](step_context& ctx) { return provisioning_location(read, ctx); };
  // Starts on a worker: the location is read from the store.
  auto remove = [drv, locate](async_call call) {
    auto loc = locate(call.context());
    if (auto err = std::get_if<infra::error>(&loc)) {
      call.complete(refused("delete", *err));
      return;
    }
    remove_once(*drv, call, "infrastructure", "deletion",
                std::get<infra::deployment_location>(loc));
  };
  auto not_gone = [](const step_context& ctx) {
    auto d = ctx.data().if_contains("deletion");
    return d == nullptr || !d->is_object() || !d->get_object().contains("already_gone");
  };
  infra::monitor_source src;
  src.task_key = "deletion";
  src.outputs_key.clear();
  src.location = locate;
  auto best_effort = [&](const char* name) {
    return make_step(name, [cleanup, task = std::string(name)](
                             step_context& ctx) { return cleanup(task, ctx); })
      .with_policy(deps.calls)
      .as_best_effort();
  };
  workflow wf("deprovision_runtime", 1);
  wf.step(10, make_step("load_provisioning",
                        [read](step_context& ctx) { return load_provisioning(read, ctx); })
                .with_policy(deps.calls))
    .step(
      20,
      make_async_step("delete_infrastructure", remove).starting_on_worker().with_policy(deps.calls))
    .step(30, infra::make_monitor_step("await_deletion", deps.monitor, src).when(not_gone))
    .step(40, best_effort("release_dns"))
    .step(50, best_effort("remove_monitoring"))
    .secret(location_secret)
    .serialize_by(runtime_key, "runtime:/name")
    .label("runtime", "/name")
    .label("instance_id", "/broker/instance_id")
    .label("location", "/deployment_location/name");
  return wf;
}

} // namespace stepwise::workflows
