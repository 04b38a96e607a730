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
    auto& row = r.row;
    auto& e = ops_[row.id];
    e = entry{r.created_at, std::move(row.workflow),   std::move(row.key), row.admission,
              row.state,    std::move(row.blocked_by), row.revision};
    count(row.id, e, 1);
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
  if (waits(e.admission, e.state)) {
    if (sign > 0)
      waiting_.emplace(e.created_at, id);
    else
      waiting_.erase({e.created_at, id});
    return;
  }
  if (e.admission != admission::admitted)
    return;
  if (auto& n = held_.running[e.workflow]; (n += sign) == 0)
    held_.running.erase(e.workflow);
  if (e.key.empty())
    return;
  if (sign > 0) {
    held_.keys[e.key] = id;
  } else if (auto i = held_.keys.find(e.key); i != held_.keys.end() && i->second == id) {
    held_.keys.erase(i);
  }
}

void admission_mirror::created(const operation& op) {
  if (!loaded_ || op.admission == admission::none || is_terminal(op.state))
    return;
  auto& e = ops_[op.id];
  e = entry{to_micros(op.created_at),
            op.workflow,
            op.key,
            op.admission,
            op.state,
            op.blocked_by,
            op.revision};
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
    e = entry{
      to_micros(op.created_at), op.workflow, op.key, admission::queued, op.state, {}, op.revision};
    count(op.id, e, 1);
    return;
  }
  auto& e = i->second;
  count(op.id, e, -1);
  if (is_terminal(op.state)) {
    ops_.erase(i);
    return;
  }
  e.workflow = op.workflow;
  e.state = op.state;
  e.revision = op.revision;
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
    i->second.admission = u.admission;
    i->second.blocked_by = u.blocked_by;
    count(u.id, i->second, 1);
  }
}

std::vector<admission_row> admission_mirror::waiting() const {
  std::vector<admission_row> rows;
  rows.reserve(waiting_.size());
  for (auto& [created_at, id] : waiting_) {
    auto& e = ops_.at(id);
    rows.push_back({id, e.workflow, e.key, e.admission, e.state, e.blocked_by, e.revision});
  }
  return rows;
}

} // namespace stepwise
