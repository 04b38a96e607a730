#pragma once

#include <chrono>

#include "engine/workflow.hpp"

namespace stepwise::workflows {

/// Returns the `demo` workflow (version 1), registered by `stepwise serve`
/// so that a first run has something to start. Its steps are pure functions
/// (no I/O) that show each kind of step:
///
/// 1. `greet`: stores `{"greeting": "hello, <input.name>"}`.
/// 2. `flaky`: asks for a retry after 500 ms on its first attempt, then
///    succeeds (a `step_retry_scheduled` event, then `step_succeeded`).
/// 3. `pause`: a durable sleep of `demo_pause` (survives restarts).
/// 4. `notify`: best-effort; its simulated notification service is always
///    down, so after 2 attempts it gives up (`step_incomplete`) and the
///    operation goes on.
/// 5. `finish`: stores `{"finished": true}`, or fails the operation when the
///    input has `"fail": true` (to try `stepwise ops retry`).
///
/// Input: `{"name"?: string, "fail"?: bool, "token"?: any}`; `/token` is
/// declared secret and shown as `"***"`.
workflow demo();

/// The length of the demo's durable sleep.
inline constexpr auto demo_pause = std::chrono::seconds(2);

} // namespace stepwise::workflows
