#pragma once

#include <optional>
#include <string>

#include <boost/json.hpp>

#include "engine/event.hpp"

namespace stepwise::infra {

/// Returns the API form of an event, as `GET /api/v1/events` lists it and
/// sinks deliver it: `{seq, time, operation_id, type}` plus `step`,
/// `attempt`, `state`, `error` when set and the type's extra fields (which
/// never shadow the standard ones).
boost::json::object event_json(const event& e);

/// Appends `serialize(event_json(e))` to `out`, written directly: the
/// events stream and the sinks write every event, and building the object
/// first cost more than the rest of sending it.
void append_event_json(std::string& out, const event& e);

/// Returns the completion message Ignition sends for an
/// `infrastructure_task_completed` event: `{requestId, infrastructureId,
/// status, failureDetails (FAILED only), outputs}`; none for other events.
std::optional<boost::json::object> completion_message(const event& e);

/// Returns the request id an `infrastructure_task_completed` event reports
/// on; empty for other events.
std::string completion_request_id(const event& e);

} // namespace stepwise::infra
