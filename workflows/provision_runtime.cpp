#include "workflows/provision_runtime.hpp"

#include "infra/task_json.hpp"
#include "workflows/infra_steps.hpp"
#include "workflows/overrides.hpp"

namespace stepwise::workflows {

namespace {

outcome validate_runtime(step_context& ctx) {
  auto& in = ctx.input();
  if (string_at(in, "name").empty())
    return fail("invalid input: \"name\" must be a non-empty string");
  if (!infra::location_from_json(in.if_contains("deployment_location")))
    return fail("invalid input: \"deployment_location\" must be an object with a "
                "non-empty string \"name\"");
  if (string_at(in, "template").empty())
    return fail("invalid input: \"template\" must be a non-empty string");
  if (auto t = in.if_contains("template_type"); t != nullptr && !t->is_string())
    return fail("invalid input: \"template_type\" must be a string");
  if (auto p = in.if_contains("properties"); p != nullptr && !p->is_object())
    return fail("invalid input: \"properties\" must be an object");
  if (auto bad = check_input_overrides(in))
    return fail(std::move(*bad));
  return done();
}

outcome record_runtime(step_context& ctx) {
  auto& in = ctx.input();
  auto ids = infra::ids_from_json(ctx.data().if_contains("infrastructure"));
  if (!ids)
    return fail("no infrastructure was recorded");
  boost::json::object runtime;
  runtime["name"] = string_at(in, "name");
  runtime["infrastructure_id"] = ids->infrastructure_id;
  runtime["location"] = infra::location_from_json(in.if_contains("deployment_location"))->name;
  if (auto out = ctx.data().if_contains("outputs"))
    runtime["outputs"] = *out;
  runtime["provisioned_at"] = format_time(ctx.now());
  ctx.data()["runtime"] = std::move(runtime);
  return done();
}

} // namespace

workflow provision_runtime(const infrastructure_deps& deps) {
  auto drv = deps.driver;
  auto create = [drv](async_call call) {
    auto& in = call.context().input();
    create_spec spec{string_at(in, "template"),
                     string_at(in, "template_type"),
                     string_at(in, "name"),
                     {},
                     *infra::location_from_json(in.if_contains("deployment_location"))};
    if (auto p = in.if_contains("properties"); p != nullptr && p->is_object())
      spec.properties = p->get_object();
    // Step overrides are collected anew in every process (never stored):
    // the steps that add them ran, or ran again, before this one.
    add_override_properties(spec.properties, input_overrides(in));
    add_override_properties(spec.properties, call.context().overrides());
    create_once(*drv, call, "infrastructure", std::move(spec));
  };
  infra::monitor_source src;
  src.task_key = "infrastructure";
  src.outputs_key = "outputs";
  workflow wf("provision_runtime", deps.provision_version);
  wf.step(10, make_step("validate", validate_runtime))
    .step(
      20,
      make_async_step("create_infrastructure", create).with_policy(deps.calls).using_transient())
    .step(30, infra::make_monitor_step("await_infrastructure", deps.monitor, src))
    .step(40, make_step("record_runtime", record_runtime))
    .secret(location_secret)
    .serialize_by(runtime_key, "runtime:/name")
    // Found by runtime, broker instance and location (GET /api/v1/operations?label=).
    .label("runtime", "/name")
    .label("instance_id", "/broker/instance_id")
    .label("location", "/deployment_location/name");
  for (auto& added : deps.provisioning_steps)
    wf.step(added.weight, step_def{added.step}.producing_transient());
  return wf;
}

} // namespace stepwise::workflows
