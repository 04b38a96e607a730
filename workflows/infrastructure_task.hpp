#pragma once

#include "engine/workflow.hpp"
#include "workflows/infrastructure.hpp"

namespace stepwise::workflows {

/// Returns the `infrastructure_task` workflow (version 1): one monitor step,
/// `monitor`, that watches a create or delete task the HTTP gateway started.
///
/// Input: `{"infrastructure_id", "request_id", "deployment_location":
/// {name, type, properties}, "kind": "create" | "delete"}`. The gateway
/// starts it with the idempotency key `"infrastructure-task:" + request_id`,
/// so each request id gets one operation and one
/// `infrastructure_task_completed` event. A complete task's outputs are
/// stored in the data as `outputs`.
workflow infrastructure_task(const infrastructure_deps& deps);

} // namespace stepwise::workflows
