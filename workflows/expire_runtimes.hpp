#pragma once

#include "engine/workflow.hpp"
#include "workflows/infrastructure.hpp"

namespace stepwise::workflows {

/// Returns the `expire_runtimes` workflow (version 1): deprovisions the
/// runtimes that `provision_runtime` made more than `age_days` ago and that
/// still exist, each by a child `deprovision_runtime` operation; meant to
/// run on a schedule (README: hourly).
///
/// Input: `{"age_days": number > 0, "max_at_once": 1 to 1000 (default 50)}`.
///
/// 1. `find_expired`: the succeeded `provision_runtime` operations created
///    before now − age_days whose runtime no `deprovision_runtime` removed
///    or is removing (one pending, running or succeeded for it), oldest
///    first, at most `max_at_once` of them (the next run takes the next
///    ones); stores `expired`: `[{provision_operation_id, name,
///    created_at}]`.
/// 2. `deprovision`: starts one child `deprovision_runtime` per runtime, in
///    the slot of its provisioning operation's id, with the runtime's name
///    (so that two deprovisionings of one runtime never run at once, and
///    the second finds it gone: see `runtime_key`).
/// 3. `await_deprovisions`: waits for all of them, failures accepted.
/// 4. `record`: stores `removed` (the provisioning operations whose
///    runtime is gone) and `not_removed` (`[{provision_operation_id,
///    error}]`).
workflow expire_runtimes(const infrastructure_deps& deps);

} // namespace stepwise::workflows
