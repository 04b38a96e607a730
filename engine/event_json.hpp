#pragma once

#include <string>

#include <boost/json.hpp>

#include "engine/event.hpp"

namespace stepwise {

/// Returns the API form of an event, as `GET /api/v1/events` lists it and
/// sinks deliver it: `{seq, time, operation_id, type}` plus `step`,
/// `attempt`, `state`, `error`, `by` when set and the type's extra fields (which
/// never shadow the standard ones).
boost::json::object event_json(const event& e);

/// Appends `serialize(event_json(e))` to `out`, written directly: the
/// events stream and the sinks write every event, and building the object
/// first cost more than the rest of sending it.
void append_event_json(std::string& out, const event& e);

} // namespace stepwise
