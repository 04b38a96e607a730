#pragma once

#include <string_view>

#include <boost/json/value.hpp>
#include <caf/expected.hpp>

#include "engine/command_store.hpp"
#include "engine/commands.hpp"
#include "engine/key_ring.hpp"

/// What a stored command (engine/command_store.hpp) carries besides its
/// kind: the members of its `command_request`, as its `payload`. A retry's
/// input patch may set secret values, and the commands table is not the
/// place for them in the clear: the whole patch is sealed.
namespace stepwise {

/// Returns the payload that carries `req` for operation `owner`.
[[nodiscard]] caf::expected<boost::json::value> command_payload(const command_request& req,
                                                                const key_ring* keys,
                                                                std::string_view owner);

/// Returns the request that stored command `cmd` (not a signal) carries.
[[nodiscard]] caf::expected<command_request> stored_request(const stored_command& cmd,
                                                            const key_ring* keys);

} // namespace stepwise
