#include "storage/pg_rows.hpp"

#include "storage/event_row.hpp"
#include "storage/op_row.hpp"

namespace stepwise {

namespace {

template <class T, class Read>
caf::expected<std::vector<T>> read_all(const pg_result& r, Read read) {
  std::vector<T> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    auto x = read(pg_row{r, i});
    if (!x)
      return std::move(x.error());
    out.emplace_back(std::move(*x));
  }
  return out;
}

// The column after the shared ones (`STEPWISE_PG_OP_COLUMNS`).
constexpr int owner_col = 23;

} // namespace

caf::expected<operation> pg_read_operation(const pg_row& row) {
  auto op = read_operation(row);
  if (op && !row.is_null(owner_col))
    op->owner = std::string{row.text(owner_col)};
  return op;
}

caf::expected<std::vector<operation>> pg_read_operations(const pg_result& r) {
  return read_all<operation>(r, pg_read_operation);
}

caf::expected<std::vector<event>> pg_read_events(const pg_result& r) {
  return read_all<event>(r, read_event);
}

} // namespace stepwise
