#include "storage/op_row.hpp"

#include <memory>

#include "engine/errc.hpp"
#include "engine/labels.hpp"
#include "storage/codec.hpp"

namespace stepwise {

void encode_op_json(const operation& op, checkpoint::kind what, op_row_buffers& buf) {
  buf.data.clear();
  codec::encode_object(buf.data, op.data);
  buf.steps.clear();
  codec::encode_steps(buf.steps, op.steps);
  buf.signals.clear();
  codec::encode_signals(buf.signals, op.signals);
  buf.input.clear();
  buf.labels.clear();
  if (what == checkpoint::kind::create) {
    if (!op.labels.empty())
      buf.labels = boost::json::serialize(labels_json(op.labels));
    if (op.input)
      codec::encode_object(buf.input, *op.input);
    else
      buf.input = "{}";
  }
}

op_row op_row_of(const operation& op, checkpoint::kind what, const op_row_buffers& buf) {
  op_row row;
  row.id = op.id;
  row.workflow = op.workflow;
  row.workflow_version = op.workflow_version;
  row.state = to_string(op.state);
  row.data = buf.data;
  row.steps = buf.steps;
  row.error = op.error;
  row.updated_at = to_micros(op.updated_at);
  row.deadline = codec::encode_time(op.deadline);
  row.revision = op.revision;
  row.wake_at = codec::encode_time(op.wake_at);
  row.signals = buf.signals;
  row.pause_requested = op.pause_requested ? 1 : 0;
  if (what == checkpoint::kind::create) {
    row.input = buf.input;
    row.created_at = to_micros(op.created_at);
    if (!op.idempotency_key.empty())
      row.idempotency_key = op.idempotency_key;
    row.request_hash = op.request_hash;
    if (!op.key.empty())
      row.queue_key = op.key;
    if (op.admission != admission::none)
      row.admission = to_string(op.admission);
    row.blocked_by = op.blocked_by;
    if (!op.parent_id.empty())
      row.parent_id = op.parent_id;
    if (!op.schedule_id.empty())
      row.schedule_id = op.schedule_id;
    if (!op.labels.empty())
      row.labels = buf.labels;
  }
  return row;
}

op_row encode_op_row(const operation& op, checkpoint::kind what, op_row_buffers& buf) {
  encode_op_json(op, what, buf);
  return op_row_of(op, what, buf);
}

bool patches_input(const checkpoint& cp) {
  if (cp.what != checkpoint::kind::update || !cp.op)
    return false;
  for (auto& e : cp.events)
    if (e.type == event_type::input_patched)
      return true;
  return false;
}

std::shared_ptr<const prepared_checkpoint> encode_checkpoint(const checkpoint& cp) {
  if (!cp.op)
    return nullptr;
  auto out = std::make_shared<encoded_checkpoint>();
  encode_op_json(*cp.op, cp.what, out->json);
  return out;
}

const char encoded_checkpoint::tag = 0;

op_row checkpoint_row(const checkpoint& cp, op_row_buffers& buf) {
  if (cp.prepared && cp.prepared->maker == &encoded_checkpoint::tag)
    return op_row_of(*cp.op, cp.what, static_cast<const encoded_checkpoint&>(*cp.prepared).json);
  return encode_op_row(*cp.op, cp.what, buf);
}

op_row read_op_row(const column_reader& cols) {
  op_row row;
  row.id = cols.text(0);
  row.workflow = cols.text(1);
  row.workflow_version = static_cast<int32_t>(cols.int64(2));
  row.state = cols.text(3);
  row.input = cols.text(4);
  row.data = cols.text(5);
  row.steps = cols.text(6);
  row.error = cols.text(7);
  row.created_at = cols.int64(8);
  row.updated_at = cols.int64(9);
  row.deadline = cols.optional_int64(10);
  row.idempotency_key = cols.optional_text(11);
  row.request_hash = cols.text(12);
  row.revision = cols.int64(13);
  row.wake_at = cols.optional_int64(14);
  row.signals = cols.text(15);
  row.queue_key = cols.optional_text(16);
  row.admission = cols.optional_text(17);
  row.blocked_by = cols.text(18);
  row.pause_requested = static_cast<int32_t>(cols.int64(19));
  row.parent_id = cols.optional_text(20);
  row.schedule_id = cols.optional_text(21);
  row.labels = cols.optional_text(22);
  return row;
}

caf::expected<operation> decode_op_row(const op_row& row) {
  operation op;
  op.id = std::string{row.id};
  auto state = parse_op_state(row.state);
  if (!state)
    return make_error(errc::store_failure, "reading operation '" + op.id
                                             + "' failed: unknown state '" + std::string{row.state}
                                             + "'");
  op.state = *state;
  auto input = codec::decode_object(row.input, "operation input");
  if (!input)
    return std::move(input.error());
  op.input = std::make_shared<const boost::json::object>(std::move(*input));
  auto data = codec::decode_object(row.data, "operation data");
  if (!data)
    return std::move(data.error());
  op.data = std::move(*data);
  auto steps = codec::decode_steps(row.steps);
  if (!steps)
    return std::move(steps.error());
  op.steps = std::move(*steps);
  op.workflow = std::string{row.workflow};
  op.workflow_version = row.workflow_version;
  op.error = std::string{row.error};
  op.created_at = from_micros(row.created_at);
  op.updated_at = from_micros(row.updated_at);
  op.deadline = codec::decode_time(row.deadline);
  op.idempotency_key = std::string{row.idempotency_key.value_or("")};
  op.request_hash = std::string{row.request_hash};
  op.revision = row.revision;
  op.wake_at = codec::decode_time(row.wake_at);
  auto signals = codec::decode_signals(row.signals);
  if (!signals)
    return std::move(signals.error());
  op.signals = std::move(*signals);
  op.key = std::string{row.queue_key.value_or("")};
  if (row.admission) {
    auto adm = parse_admission(*row.admission);
    if (!adm)
      return make_error(errc::store_failure, "reading operation '" + op.id
                                               + "' failed: unknown admission '"
                                               + std::string{*row.admission} + "'");
    op.admission = *adm;
  }
  op.blocked_by = std::string{row.blocked_by};
  op.pause_requested = row.pause_requested != 0;
  op.parent_id = std::string{row.parent_id.value_or("")};
  op.schedule_id = std::string{row.schedule_id.value_or("")};
  if (row.labels) {
    auto labels = codec::decode_object(*row.labels, "operation labels");
    if (!labels)
      return std::move(labels.error());
    for (auto& [k, v] : *labels)
      if (v.is_string())
        op.labels.emplace(std::string{k}, std::string{v.get_string()});
  }
  return op;
}

} // namespace stepwise
