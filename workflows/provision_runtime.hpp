#pragma once

#include "engine/workflow.hpp"
#include "workflows/infrastructure.hpp"

namespace stepwise::workflows {

/// Returns the `provision_runtime` workflow (version 1): creates
/// infrastructure for a runtime and waits until it is ready.
///
/// Input: `{"name", "deployment_location": {name, type?, properties?},
/// "template", "template_type"?, "properties"?}`.
///
/// 1. `validate`: fails on a missing or wrong-typed field.
/// 2. `create_infrastructure`: a driver create with `resourceName` = name
///    and `requestId` = the step's idempotency key; stores the ids as
///    `infrastructure`. Temporary errors and an unreachable location are
///    retried (bounded); an invalid template fails.
/// 3. `await_infrastructure`: the monitor; stores the task's `outputs`.
/// 4. `record_runtime`: stores `runtime` = {name, infrastructure_id,
///    location, outputs}.
///
/// `deprovision_runtime` reads `infrastructure` and the input's location.
workflow provision_runtime(const infrastructure_deps& deps);

} // namespace stepwise::workflows
