#pragma once

#include <optional>
#include <string>

#include <boost/json.hpp>

#include "engine/registry.hpp"
#include "engine/schedule_requests.hpp"
#include "http/errors.hpp"

/// The API form of schedules (`/api/v1/schedules`): the definition a client
/// writes, `{id, workflow, version?, input, cron | every, offset?,
/// time_zone?, overlap?, catch_up?, catch_up_window?, paused?, end_at?}`, and the
/// schedule it reads back, the definition plus the engine's state.
namespace stepwise::http {

/// Decodes a definition into `out` (whose state fields stay as they are).
/// `path_id` is the id of `PUT /api/v1/schedules/{id}`: the body's `id`
/// may then be left out, and must match when given; empty for a create,
/// whose body names its id. Unknown fields are rejected, and the fields
/// the engine writes (`revision`, `fired`, ...) are named as such, so that
/// a client that sends back what it read learns what to leave out. Only
/// the shape is checked here; the engine checks the values (the cron
/// expression, the time zone, the workflow) and names the field.
std::optional<api_error> decode_schedule(const boost::json::value& body, const std::string& path_id,
                                         schedule& out);

/// Returns the API form of a schedule: its definition (durations as text
/// like `30s`, times RFC 3339), its state and `next_fire` (null when it
/// does not fire again or is paused). Absent optional values are null.
boost::json::object to_json(const schedule_view& v);

/// Returns `v` with the values at the secret paths of its workflow (every
/// registered version of that name) and any sealed value in its input
/// shown as `"***"`, as an operation's input is.
schedule_view masked(schedule_view v, const registry& workflows);

} // namespace stepwise::http
