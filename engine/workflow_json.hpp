#pragma once

#include <string>

#include <boost/json.hpp>
#include <caf/actor.hpp>
#include <caf/expected.hpp>

#include "engine/workflow.hpp"

/// Workflows defined as data (`PUT /api/v1/workflows/{name}`): ordered
/// steps of four kinds, whose work is done by workers that poll task
/// queues (engine/task_requests.hpp), by time, by signals or by child
/// operations:
///
///     {"steps": [
///        {"name": "charge", "kind": "task", "queue": "billing",
///         "timeout": "5m", "heartbeat_timeout": "30s",
///         "retry": {"max_attempts": 5, "initial": "1s", "multiplier": 2},
///         "compensate": "refund"},
///        {"name": "cool_off", "kind": "sleep", "duration": "10s"},
///        {"name": "approval", "kind": "signal", "signal": "approved", "timeout": "1h"},
///        {"name": "ship", "kind": "child", "workflow": "shipping"}],
///      "key": "/customer", "limit": 10, "secrets": ["/card"]}
namespace stepwise {

/// Builds workflow `name` v`version` from `def`. Errors are
/// `invalid_argument`, naming the field (`steps[2].retry.multiplier`).
/// `broker` is the engine's task broker: the compensations of task steps
/// are tasks too.
[[nodiscard]] caf::expected<workflow> workflow_from_json(const std::string& name, int32_t version,
                                                         const boost::json::object& def,
                                                         caf::actor broker);

/// Returns `v` as JSON text with every object's keys in order: the same
/// definition, however written, gives the same text.
std::string canonical_json(const boost::json::value& v);

} // namespace stepwise
