#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stepwise {

/// The columns of one result row, as each SQL backend exposes them
/// (0-based, in select order), so that one mapping (`op_row`, `event_row`)
/// reads the rows of every backend.
class column_reader {
public:
  virtual ~column_reader() = default;

  /// Returns whether the column is NULL.
  virtual bool is_null(int col) const = 0;

  /// Returns the column as an integer (0 for NULL).
  virtual int64_t int64(int col) const = 0;

  /// Returns the column's text (empty for NULL), valid while the row is.
  virtual std::string_view text(int col) const = 0;

  /// Returns the column as an integer, or none for NULL.
  std::optional<int64_t> optional_int64(int col) const {
    if (is_null(col))
      return std::nullopt;
    return int64(col);
  }

  /// Returns the column's text, or none for NULL.
  std::optional<std::string_view> optional_text(int col) const {
    if (is_null(col))
      return std::nullopt;
    return text(col);
  }

protected:
  column_reader() = default;
  column_reader(const column_reader&) = default;
  column_reader& operator=(const column_reader&) = default;
};

} // namespace stepwise
