#pragma once

#include "engine/workflow.hpp"
#include "workflows/infrastructure.hpp"

namespace stepwise::workflows {

/// Returns the `bind_runtime` workflow (version 1): gives an application a
/// credential for a runtime (a service broker's binding).
///
/// Input: `{"name", "runtime_operation_id", "broker"?}`: `name` is the
/// runtime's (the serialization key it shares with provisioning, updates
/// and deprovisioning); `runtime_operation_id` the provisioning or last
/// update whose `runtime` it binds to.
///
/// 1. `read_runtime`: stores the runtime's `url` (its `url` output, if any).
/// 2. `issue_credential`: stores `username` and keeps a generated `password`
///    as a secret (`keep_secret`): sealed with the key ring at rest, `"***"`
///    in events, logs and the API; the broker alone opens it, to answer the
///    platform.
workflow bind_runtime(const infrastructure_deps& deps);

/// Returns the `unbind_runtime` workflow (version 1): revokes the credential
/// of a `bind_runtime` operation.
///
/// Input: `{"name", "bind_operation_id", "broker"?}`.
///
/// 1. `revoke_credential`: checks the binding and records `revoked`: the
///    binding's credential is no longer handed out.
workflow unbind_runtime(const infrastructure_deps& deps);

} // namespace stepwise::workflows
