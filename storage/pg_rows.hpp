#pragma once

#include <caf/expected.hpp>

#include "engine/event.hpp"
#include "engine/operation.hpp"
#include "storage/pg_connection.hpp"

namespace stepwise {

/// Decodes row `row` of `r`, selected as `STEPWISE_PG_OP_COLUMNS`.
[[nodiscard]] caf::expected<operation> pg_decode_operation(const pg_result& r,
                                                           int row);

/// Decodes row `row` of `r`, selected as `STEPWISE_PG_EVENT_COLUMNS`.
[[nodiscard]] caf::expected<event> pg_decode_event(const pg_result& r,
                                                   int row);

/// Decodes every row of `r` as an operation.
[[nodiscard]] caf::expected<std::vector<operation>>
pg_decode_operations(const pg_result& r);

} // namespace stepwise
