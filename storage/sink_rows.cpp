#include "storage/sink_rows.hpp"

namespace stepwise {

namespace {

std::optional<time_point> optional_time(const column_reader& cols, int col) {
  if (auto us = cols.optional_int64(col))
    return from_micros(*us);
  return std::nullopt;
}

} // namespace

caf::expected<routed_event> read_routed_event(const column_reader& cols) {
  auto ev = read_event(cols);
  if (!ev)
    return std::move(ev.error());
  return routed_event{std::move(*ev), std::string{cols.text(9)}};
}

sink_record read_sink_record(const column_reader& cols) {
  sink_record out;
  out.name = std::string{cols.text(0)};
  out.cursor = cols.int64(1);
  out.holder = std::string{cols.text(2)};
  if (!out.holder.empty())
    out.lease_expires_at = from_micros(cols.int64(3));
  out.delivered_at = optional_time(cols, 4);
  out.last_error = std::string{cols.text(5)};
  out.failed_at = optional_time(cols, 6);
  return out;
}

} // namespace stepwise
