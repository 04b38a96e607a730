#include "storage/admission_mirror.hpp"

#include "engine/time.hpp"

namespace stepwise {

namespace {

bool waits(admission adm, op_state state) {
  return adm == admission::queued || (adm == admission::admitted && state == op_state::pending);
}

} // namespace

void admission_mirror::load(std::vector<loaded_row> rows) {
  invalidate();
  for (auto& r : rows) {
    auto id = r.row.id;
    auto& e = ops_[id];
    e = std::move(r);
    count(id, e, 1);
  }
  loaded_ = true;
}

void admission_mirror::invalidate() {
  loaded_ = false;
  ops_.clear();
  waiting_.clear();
  held_ = {};
}

void admission_mirror::count(const std::string& id, const entry& e, int sign) {
  auto& row = e.row;
  if (waits(row.admission, row.state)) {
    if (sign > 0)
      waiting_.emplace(e.created_at, id);
    else
      waiting_.erase({e.created_at, id});
    return;
  }
  if (row.admission != admission::admitted)
    return;
  if (auto& n = held_.running[row.workflow]; (n += sign) == 0)
    held_.running.erase(row.workflow);
  if (row.key.empty())
    return;
  if (sign > 0) {
    held_.keys[row.key] = id;
  } else if (auto i = held_.keys.find(row.key); i != held_.keys.end() && i->second == id) {
    held_.keys.erase(i);
  }
}

void admission_mirror::created(const operation& op) {
  if (!loaded_ || op.admission == admission::none || is_terminal(op.state))
    return;
  auto& e = ops_[op.id];
  e = entry{{op.id, op.workflow, op.key, op.admission, op.state, op.blocked_by, op.revision},
            to_micros(op.created_at)};
  count(op.id, e, 1);
}

void admission_mirror::updated(const operation& op) {
  if (!loaded_)
    return;
  auto i = ops_.find(op.id);
  if (i == ops_.end()) {
    // Not taking part, or ended before: a retry of one taking part queues
    // it again, waiting for nothing yet.
    if (op.admission == admission::none || is_terminal(op.state))
      return;
    auto& e = ops_[op.id];
    e = entry{{op.id, op.workflow, op.key, admission::queued, op.state, {}, op.revision},
              to_micros(op.created_at)};
    count(op.id, e, 1);
    return;
  }
  auto& e = i->second;
  count(op.id, e, -1);
  if (is_terminal(op.state)) {
    ops_.erase(i);
    return;
  }
  e.row.workflow = op.workflow;
  e.row.state = op.state;
  e.row.revision = op.revision;
  count(op.id, e, 1);
}

void admission_mirror::apply(const std::vector<admission_update>& updates) {
  if (!loaded_)
    return;
  for (auto& u : updates) {
    auto i = ops_.find(u.id);
    if (i == ops_.end()) {
      invalidate(); // a round wrote what the mirror does not have: read again
      return;
    }
    count(u.id, i->second, -1);
    i->second.row.admission = u.admission;
    i->second.row.blocked_by = u.blocked_by;
    count(u.id, i->second, 1);
  }
}

std::vector<admission_row> admission_mirror::waiting() const {
  std::vector<admission_row> rows;
  rows.reserve(waiting_.size());
  for (auto& [created_at, id] : waiting_)
    rows.push_back(ops_.at(id).row);
  return rows;
}

} // namespace stepwise
