#pragma once

#include <string>

#include "engine/event.hpp"
#include "engine/operation.hpp"
#include "storage/pg_params.hpp"

namespace stepwise {

/// Rows of a commit as column arrays (binary): one parameter per column, unnested
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
  using t = pg_array::type;
  pg_array id_{t::text}, workflow_{t::text}, version_{t::int4},
    state_{t::text}, input_{t::text}, data_{t::text}, steps_{t::text},
    error_{t::text}, created_{t::int8}, updated_{t::int8}, deadline_{t::int8},
    key_{t::text}, hash_{t::text}, revision_{t::int8}, wake_{t::int8};
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
  using t = pg_array::type;
  pg_array id_{t::text}, expected_{t::int8}, state_{t::text}, data_{t::text},
    steps_{t::text}, error_{t::text}, updated_{t::int8}, deadline_{t::int8},
    revision_{t::int8}, wake_{t::int8};
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
  using t = pg_array::type;
  pg_array time_{t::int8}, op_{t::text}, type_{t::text}, step_{t::text},
    attempt_{t::int4}, state_{t::text}, error_{t::text}, extra_{t::text};
  std::string scratch_;
  int64_t rows_ = 0;
};

} // namespace stepwise
