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
async_step_fn undo(std::shared_ptr<infra::driver> drv, std::string ids_key,
                   std::string deletion_key) {
  return [drv, ids_key, deletion_key](async_call call) {
    auto loc = location(call.context());
    if (!loc) {
      call.complete(done()); // validation failed: nothing was created
      return;
    }
    remove_once(*drv, call, ids_key, deletion_key, *loc);
  };
}

/// Returns the image to launch: the one the image builder signalled
/// (`image_ready` with `image_id`), else the one the build created.
std::string image_of(const step_context& ctx) {
  if (auto sig = ctx.data().if_contains("image_ready"); sig != nullptr && sig->is_object())
    if (auto id = string_at(sig->get_object(), "image_id"); !id.empty())
      return id;
  auto image = infra::ids_from_json(ctx.data().if_contains("image"));
  return image ? image->infrastructure_id : std::string{};
}

} // namespace

workflow build_and_launch(const infrastructure_deps& deps) {
  auto drv = deps.driver;
  auto build = [drv](async_call call) {
    auto& ctx = call.context();
    if (auto bad = validate(ctx); bad.what != outcome::kind::done) {
      call.complete(std::move(bad));
      return;
    }
    auto& in = ctx.input();
    create_once(*drv, call, "image",
                {string_at(in, "image_template"),
                 string_at(in, "template_type"),
                 string_at(in, "name") + "-image",
                 {},
                 *location(ctx)});
  };
  auto launch = [drv](async_call call) {
    auto& ctx = call.context();
    auto& in = ctx.input();
    auto image = image_of(ctx);
    if (image.empty()) {
      call.complete(fail("no image was built"));
      return;
    }
    boost::json::object props{
      {"imageId", boost::json::object{{"value", image}, {"type", "string"}}}};
    create_once(*drv, call, "instance",
                {string_at(in, "instance_template"), string_at(in, "template_type"),
                 string_at(in, "name"), std::move(props), *location(ctx)});
  };
  infra::monitor_source image_src;
  image_src.task_key = "image";
  image_src.outputs_key = "image_outputs";
  infra::monitor_source instance_src;
  instance_src.task_key = "instance";
  instance_src.outputs_key = "instance_outputs";
  workflow wf("build_and_launch", 1);
  wf.step(10, make_async_step("build_image", build)
                .with_policy(deps.calls)
                .with_async_compensation(undo(drv, "image", "image_deletion")))
    // The image builder may say first that the image is ready: whichever
    // of its signal and the monitor's report comes first ends the wait.
    .step(20,
          infra::make_monitor_step("await_image", deps.monitor, image_src).or_signal("image_ready"))
    .step(30, make_async_step("launch_instance", launch)
                .with_policy(deps.calls)
                .with_async_compensation(undo(drv, "instance", "instance_deletion")))
    .step(40, infra::make_monitor_step("await_instance", deps.monitor, instance_src))
    .secret(location_secret);
  return wf;
}

} // namespace stepwise::workflows
