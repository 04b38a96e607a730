#pragma once

#include "engine/workflow.hpp"
#include "workflows/infrastructure.hpp"

namespace stepwise::workflows {

/// Returns the `deprovision_runtime` workflow (version 1): deletes what a
/// `provision_runtime` operation created, reading what it stored.
///
/// Input: `{"provision_operation_id", "runtime_operation_id"?, "name"?}`:
/// the infrastructure deleted is the one `runtime_operation_id` (an
/// `update_runtime` that replaced it) recorded, else the provisioning's;
/// `name` serializes it with the runtime's other operations.
///
/// 1. `load_provisioning`: reads the provisioning operation; stores
///    `target` = {provision_operation_id, infrastructure_id, name,
///    location}. Fails when there is no such operation or it recorded no
///    infrastructure.
/// 2. `delete_infrastructure`: a driver delete; stores the delete task's
///    ids as `deletion`, or `{"already_gone": true}` when the driver knows
///    no such infrastructure.
/// 3. `await_deletion`: the monitor (skipped when already gone).
/// 4. `release_dns`, 5. `remove_monitoring`: best-effort cleanups (see
///    `cleanup_fn`); when they give up the operation still succeeds.
///
/// The deployment location, credentials included, is never copied into
/// this operation's data: steps read it from the provisioning operation's
/// input when they need it.
workflow deprovision_runtime(const infrastructure_deps& deps);

} // namespace stepwise::workflows
