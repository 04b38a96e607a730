#pragma once

#include <cstdint>
#include <string>

#include "engine/requests.hpp"
#include "engine/workflow.hpp"

namespace stepwise {

/// Returns a new operation id: time-ordered, unique per process (`node`)
/// and call (`counter`).
std::string new_operation_id(time_point now, uint32_t node, uint32_t counter);

/// Returns the fingerprint of a create request: equal for the same
/// workflow, version, input and deadline.
std::string request_hash(const start_request& req, int32_t version);

/// Returns a new pending operation of `wf` for `req`.
operation new_operation(const start_request& req, const workflow& wf,
                        std::string id, time_point now);

} // namespace stepwise
