#pragma once

#include "engine/workflow.hpp"
#include "workflows/infrastructure.hpp"

namespace stepwise::workflows {

/// Returns the `provision_runtime` workflow (`deps.provision_version`): creates
/// infrastructure for a runtime and waits until it is ready.
///
/// Input: `{"name", "deployment_location": {name, type?, properties?},
/// "template", "template_type"?, "properties"?, "overrides"?}`, where
/// `overrides` is `{"<component>": {"<key>": "<value>"}}`.
///
/// 1. `validate`: fails on a missing or wrong-typed field.
/// 2. The deployment's `provisioning_steps` (by weight), which add
///    overrides (secret ones included); they run again after a restart,
///    since overrides are never stored.
/// 3. `create_infrastructure`: a driver create with `resourceName` = name
///    and `requestId` = the step's idempotency key, and every override (the
///    input's, then the steps') as property `overrides/<component>/<key>`
///    (`add_override_properties`); stores the ids as `infrastructure`.
///    Temporary errors and an unreachable location are retried (bounded);
///    an invalid template fails.
/// 4. `await_infrastructure`: the monitor; stores the task's `outputs`.
/// 5. `record_runtime`: stores `runtime` = {name, infrastructure_id,
///    location, outputs}.
///
/// `deprovision_runtime` reads `infrastructure` and the input's location.
workflow provision_runtime(const infrastructure_deps& deps);

} // namespace stepwise::workflows
