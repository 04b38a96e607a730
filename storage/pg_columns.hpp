#pragma once

#include <cstdint>
#include <string>

#include "engine/store.hpp"
#include "storage/event_row.hpp"
#include "storage/op_row.hpp"
#include "storage/pg_params.hpp"

namespace stepwise {

/// Rows of a commit as column arrays (binary): one parameter per column,
/// unnested by one multi-row statement. Per row, the server then does only
/// the write itself, not the parse/bind/execute round of a statement.

/// The operation columns of `pg_stmt::create_many` or
/// `pg_stmt::update_many`.
class pg_op_columns {
public:
  explicit pg_op_columns(checkpoint::kind what) : what_(what) {
    // nop
  }

  /// Adds the columns of `row` that the statement writes.
  void add(const op_row& row);

  /// Adds the stored command an update carries out (0: none).
  void add_command(int64_t seq);

  /// Returns the parameters: for a create every column, in the order of
  /// `STEPWISE_OP_COLUMNS`; for an update the columns it writes (see
  /// pg_statements.cpp). `owner` (may be null) is the last one of the owned
  /// variant.
  pg_params params(const std::string* owner) const;

private:
  using t = pg_array::type;
  checkpoint::kind what_;
  pg_array id_{t::text}, workflow_{t::text}, version_{t::int4}, state_{t::text}, input_{t::text},
    data_{t::text}, steps_{t::text}, error_{t::text}, created_{t::int8}, updated_{t::int8},
    deadline_{t::int8}, key_{t::text}, hash_{t::text}, revision_{t::int8}, wake_{t::int8},
    signals_{t::text}, queue_key_{t::text}, admission_{t::text}, blocked_by_{t::text},
    pause_{t::int4}, parent_{t::text}, schedule_{t::text}, labels_{t::text}, command_{t::int8};
};

/// The columns of `pg_stmt::append_events`.
class pg_event_columns {
public:
  void add(const event_row& row);

  int64_t size() const noexcept {
    return rows_;
  }

  pg_params params() const;

private:
  using t = pg_array::type;
  pg_array time_{t::int8}, op_{t::text}, type_{t::text}, step_{t::text}, attempt_{t::int4},
    state_{t::text}, error_{t::text}, extra_{t::text};
  int64_t rows_ = 0;
};

} // namespace stepwise
