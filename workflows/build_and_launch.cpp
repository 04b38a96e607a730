#include "workflows/build_and_launch.hpp"

#include "infra/task_json.hpp"
#include "workflows/infra_steps.hpp"

namespace stepwise::workflows {

namespace {

std::optional<infra::deployment_location> location(const step_context& ctx) {
  return infra::location_from_json(ctx.input().if_contains("deployment_location"));
}

outcome validate(const step_context& ctx) {
  auto& in = ctx.input();
  if (string_at(in, "name").empty())
    return fail("invalid input: \"name\" must be a non-empty string");
  if (!location(ctx))
    return fail("invalid input: \"deployment_location\" must be an object with a "
                "non-empty string \"name\"");
  for (auto key : {"image_template", "instance_template"})
    if (string_at(in, key).empty())
      return fail("invalid input: \"" + std::string(key) + "\" must be a non-empty string");
  return done();
}

/// A compensation: starts deleting what the step stored under `ids_key`.
step_fn undo(std::shared_ptr<infra::driver> drv, std::string ids_key,
             std::string deletion_key) {
  return [drv, ids_key, deletion_key](step_context& ctx) {
    auto loc = location(ctx);
    if (!loc)
      return done(); // validation failed: nothing was created
    return remove_once(*drv, ctx, ids_key, deletion_key, *loc);
  };
}

} // namespace

workflow build_and_launch(const infrastructure_deps& deps) {
  auto drv = deps.driver;
  auto build = [drv](step_context& ctx) {
    if (auto bad = validate(ctx); bad.what != outcome::kind::done)
      return bad;
    auto& in = ctx.input();
    return create_once(*drv, ctx, "image", string_at(in, "image_template"),
                       string_at(in, "template_type"), string_at(in, "name") + "-image",
                       {}, *location(ctx));
  };
  auto launch = [drv](step_context& ctx) {
    auto& in = ctx.input();
    auto image = infra::ids_from_json(ctx.data().if_contains("image"));
    if (!image)
      return fail("no image was built");
    boost::json::object props{
      {"imageId", boost::json::object{{"value", image->infrastructure_id},
                                      {"type", "string"}}}};
    return create_once(*drv, ctx, "instance", string_at(in, "instance_template"),
                       string_at(in, "template_type"), string_at(in, "name"),
                       std::move(props), *location(ctx));
  };
  infra::monitor_source image_src;
  image_src.task_key = "image";
  image_src.outputs_key = "image_outputs";
  infra::monitor_source instance_src;
  instance_src.task_key = "instance";
  instance_src.outputs_key = "instance_outputs";
  workflow wf("build_and_launch", 1);
  wf.step(10, make_step("build_image", build)
                .with_policy(deps.calls)
                .with_compensation(undo(drv, "image", "image_deletion")))
    .step(20, infra::make_monitor_step("await_image", drv, deps.monitor, image_src))
    .step(30, make_step("launch_instance", launch)
                .with_policy(deps.calls)
                .with_compensation(undo(drv, "instance", "instance_deletion")))
    .step(40, infra::make_monitor_step("await_instance", drv, deps.monitor, instance_src))
    .secret(location_secret);
  return wf;
}

} // namespace stepwise::workflows
