#pragma once

#include <optional>
#include <string>

#include <boost/json.hpp>

#include "infra/driver.hpp"

namespace stepwise::infra {

/// Reads `{"name", "type"?, "properties"?}`; `nullopt` when `v` is not an
/// object with a non-empty string `name`.
std::optional<deployment_location> location_from_json(const boost::json::value* v);

/// Returns the fields of an `infrastructure_task_completed` event:
/// `{"infrastructure_id", "request_id", "status", "failure_details":
/// {"failureCode", "description"} or null, "outputs"}`.
boost::json::object task_event(const task& t);

/// Returns the event fields of a task the monitor gave up on (not found,
/// a driver error, its deadline): FAILED with INTERNAL_ERROR.
boost::json::object internal_error_event(const std::string& infrastructure_id,
                                         const std::string& request_id, std::string description);

/// Returns `{"infrastructure_id", "request_id"}`.
boost::json::object ids_json(const accepted& ids);

/// Reads `{"infrastructure_id", "request_id"}` from `v`; `nullopt` when
/// either is missing or empty.
std::optional<accepted> ids_from_json(const boost::json::value* v);
std::optional<accepted> ids_from_json(const boost::json::object& obj);

} // namespace stepwise::infra
