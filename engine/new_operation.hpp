#pragma once

#include <cstdint>
#include <string>

#include <caf/error.hpp>

#include "engine/key_ring.hpp"
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
operation new_operation(const start_request& req, const workflow& wf, std::string id,
                        time_point now);

/// Appends `schedule_fired` to `out` when a schedule's fire starts `op`
/// (`req.schedule_id`): written with the operation's creation, so that a
/// fire started twice (a restart between its start and the schedule's
/// write) is one event, as it is one operation.
void note_fire(const operation& op, const start_request& req, time_point now,
               std::vector<event>& out);

/// Seals the values of `op`'s input at the paths `wf` declares secret
/// (with the current key of `keys`; the plain form when null), so that
/// they reach the store encrypted. Steps see them opened.
[[nodiscard]] caf::error seal_input(operation& op, const workflow& wf, const key_ring* keys);

} // namespace stepwise
