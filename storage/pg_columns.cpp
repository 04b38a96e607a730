#include "storage/pg_columns.hpp"

#include <initializer_list>

namespace stepwise {

namespace {

pg_params binary_params(std::initializer_list<const pg_array*> arrays, const std::string* owner) {
  pg_params p{arrays.size() + 1};
  for (auto* a : arrays)
    p.add_binary(a->bytes());
  if (owner != nullptr)
    p.add(*owner);
  return p;
}

} // namespace

// -- operations ---------------------------------------------------------------

void pg_op_columns::add(const op_row& row) {
  id_.add(row.id);
  state_.add(row.state);
  data_.add(row.data);
  steps_.add(row.steps);
  error_.add(row.error);
  updated_.add(row.updated_at);
  deadline_.add(row.deadline);
  revision_.add(row.revision);
  wake_.add(row.wake_at);
  signals_.add(row.signals);
  pause_.add(int64_t{row.pause_requested});
  // An update sends only what it writes: these would cost a copy per row
  // for nothing.
  if (what_ == checkpoint::kind::create) {
    workflow_.add(row.workflow);
    version_.add(int64_t{row.workflow_version});
    input_.add(row.input);
    created_.add(row.created_at);
    key_.add(row.idempotency_key);
    hash_.add(row.request_hash);
    queue_key_.add(row.queue_key);
    admission_.add(row.admission);
    blocked_by_.add(row.blocked_by);
    parent_.add(row.parent_id);
    schedule_.add(row.schedule_id);
    labels_.add(row.labels);
  }
}

void pg_op_columns::add_command(int64_t seq) {
  command_.add(seq);
}

pg_params pg_op_columns::params(const std::string* owner) const {
  if (what_ == checkpoint::kind::create)
    return binary_params({&id_,         &workflow_, &version_, &state_,    &input_,     &data_,
                          &steps_,      &error_,    &created_, &updated_,  &deadline_,  &key_,
                          &hash_,       &revision_, &wake_,    &signals_,  &queue_key_, &admission_,
                          &blocked_by_, &pause_,    &parent_,  &schedule_, &labels_},
                         owner);
  return binary_params({&id_, &state_, &data_, &steps_, &error_, &updated_, &deadline_, &revision_,
                        &wake_, &signals_, &pause_, &command_},
                       owner);
}

// -- events -------------------------------------------------------------------

void pg_event_columns::add(const event_row& row) {
  time_.add(row.time);
  op_.add(row.operation_id);
  type_.add(row.type);
  step_.add(row.step);
  attempt_.add(int64_t{row.attempt});
  state_.add(row.state);
  error_.add(row.error);
  extra_.add(row.extra);
  ++rows_;
}

pg_params pg_event_columns::params() const {
  pg_params p{9};
  p.add(rows_);
  for (auto* a : {&time_, &op_, &type_, &step_, &attempt_, &state_, &error_, &extra_})
    p.add_binary(a->bytes());
  return p;
}

} // namespace stepwise
