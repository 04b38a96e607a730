#include "storage/pg_rows.hpp"

#include <memory>

#include "engine/errc.hpp"
#include "storage/codec.hpp"

namespace stepwise {

namespace {

std::optional<int64_t> opt_int(const pg_result& r, int row, int col) {
  if (r.is_null(row, col))
    return std::nullopt;
  return r.int64(row, col);
}

std::string str(const pg_result& r, int row, int col) {
  return std::string{r.text(row, col)};
}

} // namespace

caf::expected<operation> pg_decode_operation(const pg_result& r, int row) {
  operation op;
  op.id = str(r, row, 0);
  op.workflow = str(r, row, 1);
  op.workflow_version = static_cast<int32_t>(r.int64(row, 2));
  auto state = parse_op_state(r.text(row, 3));
  if (!state)
    return make_error(errc::store_failure, "pg: operation " + op.id
                                             + ": unknown state '"
                                             + str(r, row, 3) + "'");
  op.state = *state;
  auto input = codec::decode_object(r.text(row, 4), "input");
  if (!input)
    return std::move(input.error());
  op.input = std::make_shared<const boost::json::object>(std::move(*input));
  auto data = codec::decode_object(r.text(row, 5), "data");
  if (!data)
    return std::move(data.error());
  op.data = std::move(*data);
  auto steps = codec::decode_steps(r.text(row, 6));
  if (!steps)
    return std::move(steps.error());
  op.steps = std::move(*steps);
  op.error = str(r, row, 7);
  op.created_at = from_micros(r.int64(row, 8));
  op.updated_at = from_micros(r.int64(row, 9));
  op.deadline = codec::decode_time(opt_int(r, row, 10));
  op.idempotency_key = str(r, row, 11); // NULL reads as empty
  op.request_hash = str(r, row, 12);
  op.revision = r.int64(row, 13);
  op.wake_at = codec::decode_time(opt_int(r, row, 14));
  return op;
}

caf::expected<event> pg_decode_event(const pg_result& r, int row) {
  event ev;
  ev.seq = r.int64(row, 0);
  ev.time = from_micros(r.int64(row, 1));
  ev.operation_id = str(r, row, 2);
  auto type = parse_event_type(r.text(row, 3));
  if (!type)
    return make_error(errc::store_failure, "pg: event "
                                             + std::to_string(ev.seq)
                                             + ": unknown type '"
                                             + str(r, row, 3) + "'");
  ev.type = *type;
  ev.step = str(r, row, 4);
  ev.attempt = static_cast<int32_t>(r.int64(row, 5));
  ev.state = str(r, row, 6);
  ev.error = str(r, row, 7);
  if (!r.is_null(row, 8)) {
    auto extra = codec::decode_object(r.text(row, 8), "event extra");
    if (!extra)
      return std::move(extra.error());
    ev.extra = std::move(*extra);
  }
  return ev;
}

caf::expected<std::vector<operation>>
pg_decode_operations(const pg_result& r) {
  std::vector<operation> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    auto op = pg_decode_operation(r, i);
    if (!op)
      return std::move(op.error());
    out.emplace_back(std::move(*op));
  }
  return out;
}

} // namespace stepwise
