#pragma once

#include <caf/expected.hpp>

#include "engine/admission.hpp"
#include "storage/pg_connection.hpp"

namespace stepwise {

/// Runs one admission round on `conn` in its own transaction (see
/// `store::admit`), serialized with the rounds of other processes.
[[nodiscard]] caf::expected<admission_round> pg_admit(pg_connection& conn,
                                                      const admission_limits& limits,
                                                      time_point now);

} // namespace stepwise
