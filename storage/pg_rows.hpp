#pragma once

#include <vector>

#include <caf/expected.hpp>

#include "engine/event.hpp"
#include "engine/operation.hpp"
#include "storage/column_reader.hpp"
#include "storage/op_row.hpp"
#include "storage/pg_connection.hpp"

namespace stepwise {

/// Row `row` of a result, for the shared row mappings (`op_row`,
/// `event_row`). Valid while the result is.
class pg_row final : public column_reader {
public:
  pg_row(const pg_result& r, int row) noexcept : r_(r), row_(row) {
    // nop
  }

  bool is_null(int col) const override {
    return r_.is_null(row_, col);
  }

  int64_t int64(int col) const override {
    return r_.int64(row_, col);
  }

  std::string_view text(int col) const override {
    return r_.text(row_, col);
  }

private:
  const pg_result& r_;
  int row_;
};

/// The columns PostgreSQL selects of an operation: the shared ones, then
/// its owner (a store of one process has none).
#define STEPWISE_PG_OP_COLUMNS STEPWISE_OP_COLUMNS ", owner"

/// Decodes the row `row`, selected as `STEPWISE_PG_OP_COLUMNS`.
[[nodiscard]] caf::expected<operation> pg_read_operation(const pg_row& row);

/// Decodes every row of `r`, selected as `STEPWISE_PG_OP_COLUMNS`.
[[nodiscard]] caf::expected<std::vector<operation>> pg_read_operations(const pg_result& r);

/// Decodes every row of `r`, selected as `STEPWISE_EVENT_COLUMNS`.
[[nodiscard]] caf::expected<std::vector<event>> pg_read_events(const pg_result& r);

} // namespace stepwise
