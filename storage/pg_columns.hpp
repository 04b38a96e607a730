#pragma once

#include <string>

#include "engine/event.hpp"
#include "engine/operation.hpp"
#include "storage/pg_params.hpp"

namespace stepwise {

/// Rows of a commit as column arrays: one parameter per column, unnested
/// by one multi-row statement. Per row, the server then does only the
/// write itself, not the parse/bind/execute round of a statement.

/// The columns of `pg_stmt::create_many`.
class pg_create_columns {
public:
  void add(const operation& op);

  bool empty() const noexcept {
    return rows_ == 0;
  }

  /// Returns the parameters; `owner` (may be null) is the last one of the
  /// owned variant.
  pg_params params(const std::string* owner) const;

private:
  pg_array id_, workflow_, version_, state_, input_, data_, steps_, error_,
    created_, updated_, deadline_, key_, hash_, revision_, wake_;
  std::string scratch_;
  size_t rows_ = 0;
};

/// The columns of `pg_stmt::update_many`.
class pg_update_columns {
public:
  void add(const operation& op);

  bool empty() const noexcept {
    return rows_ == 0;
  }

  pg_params params(const std::string* owner) const;

private:
  pg_array id_, expected_, state_, data_, steps_, error_, updated_,
    deadline_, revision_, wake_;
  std::string scratch_;
  size_t rows_ = 0;
};

/// The columns of `pg_stmt::append_events`.
class pg_event_columns {
public:
  void add(const event& ev);

  int64_t size() const noexcept {
    return rows_;
  }

  pg_params params() const;

private:
  pg_array time_, op_, type_, step_, attempt_, state_, error_, extra_;
  std::string scratch_;
  int64_t rows_ = 0;
};

} // namespace stepwise
