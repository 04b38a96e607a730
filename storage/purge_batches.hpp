#pragma once

#include <functional>

#include <caf/expected.hpp>

#include "engine/retention_store.hpp"

namespace stepwise {

/// Removes every operation `req` makes removable (except its
/// `max_operations`, the batch size), one batch per transaction, until a
/// batch finds none; a dry run answers what that would remove, in one
/// read. Returns the totals: `ids` holds the first ones. `progress` sees
/// the totals after each batch. What was removed before a failure stays
/// removed (each batch is one transaction).
[[nodiscard]] caf::expected<purge_result> purge_batches(
  retention_store& st, purge_request req,
  const std::function<void(const purge_result&)>& progress = nullptr);

} // namespace stepwise
