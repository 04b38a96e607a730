#pragma once

#include <string>

#include <boost/json.hpp>

#include "engine/operation.hpp"

namespace stepwise::http {

/// Returns whether `provisioning` (a provision_runtime operation the broker
/// started) was made with this service and plan.
bool osb_matches(const operation& provisioning, const std::string& service_id,
                 const std::string& plan_id);

/// Returns the `last_operation` body of `op`: `state` ("in progress",
/// "succeeded" or "failed") and a `description` for the platform's user
/// (the step it is at, or the error; secrets are masked in `op` already).
boost::json::object osb_last_operation(const operation& op);

} // namespace stepwise::http
