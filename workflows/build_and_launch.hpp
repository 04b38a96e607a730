#pragma once

#include "engine/workflow.hpp"
#include "workflows/infrastructure.hpp"

namespace stepwise::workflows {

/// Returns the `build_and_launch` workflow (version 1), a saga: build an
/// image, wait until it is ready, launch an instance of it, wait until it
/// runs. Its status is visible throughout (one step per stage).
///
/// Input: `{"name", "deployment_location", "image_template",
/// "instance_template", "template_type"?}`.
///
/// 1. `build_image`: a driver create (`resourceName` = name + "-image");
///    ids stored as `image`. Compensation: `delete_image`.
/// 2. `await_image`: the monitor; outputs stored as `image_outputs`.
/// 3. `launch_instance`: a driver create (`resourceName` = name, property
///    `imageId` = the image's infrastructure id); ids stored as `instance`.
///    Compensation: `terminate_instance`.
/// 4. `await_instance`: the monitor; outputs stored as `instance_outputs`.
///
/// When a step fails or the operation is canceled, the compensations of
/// the completed steps run in reverse (terminate, then delete the image)
/// and the operation ends failed (or canceled). A compensation starts the
/// delete and does not wait for it; deletions it started are stored as
/// `image_deletion` and `instance_deletion`.
workflow build_and_launch(const infrastructure_deps& deps);

} // namespace stepwise::workflows
