#include "workflows/deprovision_runtime.hpp"

#include "engine/errc.hpp"
#include "infra/task_json.hpp"
#include "workflows/infra_steps.hpp"

namespace stepwise::workflows {

namespace {

constexpr const char* location_key = "deployment_location";

/// Reads the provisioning operation named by the input. A store failure is
/// temporary (the step is retried); a missing operation is not.
infra::result<operation> read_provisioning(const read_operation_fn& read, const step_context& ctx) {
  auto id = string_at(ctx.input(), "provision_operation_id");
  if (id.empty())
    return infra::error{infra::error_kind::infrastructure_error,
                        "invalid input: \"provision_operation_id\" must be a "
                        "non-empty string"};
  auto res = read(id);
  if (!res)
    return infra::error{infra::error_kind::temporary,
                        "cannot read operation " + id + ": " + message_of(res.error())};
  if (!*res)
    return infra::error{infra::error_kind::infrastructure_error, "no operation " + id};
  return std::move(**res);
}

/// Returns the provisioning operation's deployment location, read again
/// each time and its credentials opened in memory: keeping it in this
/// operation's data would store a secret once more, and keeping it as a
/// transient value would keep a sleeping monitor from being passivated.
infra::result<infra::deployment_location> location_of(const read_operation_fn& read,
                                                      step_context& ctx) {
  auto op = read_provisioning(read, ctx);
  if (auto err = std::get_if<infra::error>(&op))
    return *err;
  auto opened = ctx.open_secrets(std::move(std::get<operation>(op)));
  if (!opened)
    return infra::error{infra::error_kind::infrastructure_error, message_of(opened.error())};
  auto& in = *opened->input;
  auto loc = infra::location_from_json(in.if_contains(location_key));
  if (!loc)
    return infra::error{infra::error_kind::infrastructure_error,
                        "the provisioning operation has no deployment_location"};
  return *loc;
}

outcome load_provisioning(const read_operation_fn& read, step_context& ctx) {
  auto res = read_provisioning(read, ctx);
  if (auto err = std::get_if<infra::error>(&res))
    return err->kind == infra::error_kind::temporary ? retry_after(duration{0}, err->message)
                                                     : fail(err->message);
  auto& op = std::get<operation>(res);
  if (op.workflow != "provision_runtime")
    return fail("operation " + op.id + " is a " + op.workflow
                + " operation, not provision_runtime");
  auto ids = infra::ids_from_json(op.data.if_contains("infrastructure"));
  if (!ids)
    return fail("operation " + op.id + " created no infrastructure");
  auto loc = location_of(read, ctx);
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
  auto locate = [read](step_context& ctx) { return location_of(read, ctx); };
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
    .serialize_by(runtime_key, "runtime:/name");
  return wf;
}

} // namespace stepwise::workflows
