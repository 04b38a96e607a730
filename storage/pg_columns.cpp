#include "storage/pg_columns.hpp"

#include "storage/codec.hpp"

namespace stepwise {

namespace {

void add_time(pg_array& a, const std::optional<time_point>& t) {
  if (t)
    a.add(to_micros(*t));
  else
    a.add_null();
}

void add_object(pg_array& a, std::string& scratch,
                const boost::json::object& x) {
  scratch.clear();
  codec::encode_object(scratch, x);
  a.add(scratch);
}

} // namespace

// -- creates ------------------------------------------------------------------

void pg_create_columns::add(const operation& op) {
  static const boost::json::object no_input;
  id_.add(op.id);
  workflow_.add(op.workflow);
  version_.add(static_cast<int64_t>(op.workflow_version));
  state_.add(to_string(op.state));
  add_object(input_, scratch_, op.input ? *op.input : no_input);
  add_object(data_, scratch_, op.data);
  scratch_.clear();
  codec::encode_steps(scratch_, op.steps);
  steps_.add(scratch_);
  error_.add(op.error);
  created_.add(to_micros(op.created_at));
  updated_.add(to_micros(op.updated_at));
  add_time(deadline_, op.deadline);
  if (op.idempotency_key.empty())
    key_.add_null();
  else
    key_.add(op.idempotency_key);
  hash_.add(op.request_hash);
  revision_.add(op.revision);
  add_time(wake_, op.wake_at);
  ++rows_;
}

pg_params pg_create_columns::params(const std::string* owner) const {
  pg_params p{16};
  for (auto* a : {&id_, &workflow_, &version_, &state_, &input_, &data_,
                  &steps_, &error_, &created_, &updated_, &deadline_, &key_,
                  &hash_, &revision_, &wake_})
    p.add_binary(a->bytes());
  if (owner != nullptr)
    p.add(*owner);
  return p;
}

// -- updates ------------------------------------------------------------------

void pg_update_columns::add(const operation& op) {
  id_.add(op.id);
  expected_.add(op.revision - 1);
  state_.add(to_string(op.state));
  add_object(data_, scratch_, op.data);
  scratch_.clear();
  codec::encode_steps(scratch_, op.steps);
  steps_.add(scratch_);
  error_.add(op.error);
  updated_.add(to_micros(op.updated_at));
  add_time(deadline_, op.deadline);
  revision_.add(op.revision);
  add_time(wake_, op.wake_at);
  ++rows_;
}

pg_params pg_update_columns::params(const std::string* owner) const {
  pg_params p{11};
  for (auto* a : {&id_, &expected_, &state_, &data_, &steps_, &error_,
                  &updated_, &deadline_, &revision_, &wake_})
    p.add_binary(a->bytes());
  if (owner != nullptr)
    p.add(*owner);
  return p;
}

// -- events -------------------------------------------------------------------

void pg_event_columns::add(const event& ev) {
  time_.add(to_micros(ev.time));
  op_.add(ev.operation_id);
  type_.add(to_string(ev.type));
  step_.add(ev.step);
  attempt_.add(static_cast<int64_t>(ev.attempt));
  state_.add(ev.state);
  error_.add(ev.error);
  if (ev.extra.empty())
    extra_.add_null();
  else
    add_object(extra_, scratch_, ev.extra);
  ++rows_;
}

pg_params pg_event_columns::params() const {
  pg_params p{9};
  p.add(rows_);
  for (auto* a : {&time_, &op_, &type_, &step_, &attempt_, &state_, &error_,
                  &extra_})
    p.add_binary(a->bytes());
  return p;
}

} // namespace stepwise
