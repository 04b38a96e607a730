#pragma once

#include "engine/workflow.hpp"
#include "workflows/infrastructure.hpp"

namespace stepwise::workflows {

/// Returns the `update_runtime` workflow (version 1): changes a runtime's
/// template, template type or properties through the Infrastructure API.
/// The API has no update call, so the runtime is replaced: new
/// infrastructure is created and awaited first, and only then is the old
/// one deleted (best-effort: the update stands when that delete gives up);
/// a failed update leaves the runtime as it was.
///
/// Input: `{"name", "template", "template_type"?, "properties"?,
/// "provision_operation_id", "runtime_operation_id", "broker"?}`: the
/// deployment location (and its credentials) is read from the provisioning
/// operation, never copied; the infrastructure replaced is the one
/// `runtime_operation_id` (the provisioning or the last successful update)
/// recorded.
///
/// 1. `load_runtime`: stores the old infrastructure's ids as `previous`.
/// 2. `create_infrastructure`, 3. `await_infrastructure`: as provisioning.
/// 4. `record_runtime`: stores `runtime` = {name, infrastructure_id,
///    outputs, updated_at}.
/// 5. `delete_previous`, 6. `await_deletion`: remove the old infrastructure
///    (best-effort).
///
/// Serialized by the runtime's name with provisioning and deprovisioning.
workflow update_runtime(const infrastructure_deps& deps);

} // namespace stepwise::workflows
