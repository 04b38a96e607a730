#pragma once

#include <optional>
#include <string>

#include <boost/json.hpp>

#include "engine/event.hpp"

// What an infrastructure task's completion looks like to the systems that
// wait for it (Ignition's completion message), from the event the monitor
// wrote.

namespace stepwise::infra {

/// Returns the completion message Ignition sends for an
/// `infrastructure_task_completed` event: `{requestId, infrastructureId,
/// status, failureDetails (FAILED only), outputs}`; none for other events.
std::optional<boost::json::object> completion_message(const event& e);

/// Returns the request id an `infrastructure_task_completed` event reports
/// on; empty for other events.
std::string completion_request_id(const event& e);

} // namespace stepwise::infra
