// The retention side of memory_store (a test double): the rules of
// engine/retention_store.hpp over the maps, for the actor tests that
// purge. Removed events leave their slot (seq - 1) empty, seq 0.
#include <algorithm>
#include <limits>
#include <tuple>

#include "engine/errc.hpp"
#include "engine/schedule.hpp"
#include "storage/memory_store.hpp"

namespace stepwise {

namespace {

std::string provision_of(const operation& op) {
  if (!op.input)
    return {};
  auto i = op.input->find("provision_operation_id");
  if (i == op.input->end() || !i->value().is_string())
    return {};
  return std::string{i->value().as_string()};
}

} // namespace

bool memory_store::removable(const operation& op, const purge_request& req,
                             int64_t lowest_cursor) const {
  if (!is_terminal(op.state) || op.updated_at >= req.ended_before
      || (!req.workflow.empty() && op.workflow != req.workflow))
    return false;
  if (!op.schedule_id.empty() && op.created_at >= req.ended_before - schedule_grace)
    return false;
  if (req.after && std::tie(op.updated_at, op.id) <= std::tie(req.after->updated_at, req.after->id))
    return false;
  if (!op.parent_id.empty())
    if (auto p = ops_.find(op.parent_id); p != ops_.end() && !is_terminal(p->second.state))
      return false;
  bool deprovisioned = false;
  for (auto& kv : ops_) {
    auto& other = kv.second;
    if (!is_terminal(other.state) && other.parent_id == op.id)
      return false;
    if (other.workflow == "deprovision_runtime" && provision_of(other) == op.id) {
      if (!is_terminal(other.state))
        return false;
      deprovisioned = deprovisioned || other.state == op_state::succeeded;
    }
  }
  if (op.workflow == "provision_runtime" && op.state == op_state::succeeded && !deprovisioned)
    return false;
  if (op.workflow == "deprovision_runtime" && op.state == op_state::succeeded
      && ops_.count(provision_of(op)) > 0)
    return false;
  return std::none_of(events_.begin(), events_.end(), [&](const event& e) {
    return e.seq > lowest_cursor && e.operation_id == op.id;
  });
}

caf::expected<purge_result> memory_store::purge(const purge_request& req) {
  if (req.max_operations == 0)
    return make_error(errc::invalid_argument, "purge: max_operations must be at least 1");
  std::lock_guard<std::mutex> guard{mtx_};
  auto lowest = std::numeric_limits<int64_t>::max();
  for (auto& kv : sinks_)
    lowest = std::min(lowest, kv.second.cursor);
  std::vector<const operation*> found;
  for (auto& kv : ops_)
    if (removable(kv.second, req, lowest))
      found.push_back(&kv.second);
  std::sort(found.begin(), found.end(), [](auto* a, auto* b) {
    return std::tie(a->updated_at, a->id) < std::tie(b->updated_at, b->id);
  });
  if (found.size() > req.max_operations)
    found.resize(req.max_operations);
  purge_result res;
  res.found = found.size();
  if (!found.empty())
    res.last = purge_position{found.back()->updated_at, found.back()->id};
  std::vector<std::string> ids;
  for (auto* op : found) {
    ids.push_back(op->id);
    if (res.ids.size() < purge_result::max_ids)
      res.ids.push_back(op->id);
  }
  res.operations = ids.size();
  auto highest = horizon_;
  for (auto& e : events_)
    if (e.seq != 0 && std::find(ids.begin(), ids.end(), e.operation_id) != ids.end()) {
      ++res.events;
      highest = std::max(highest, e.seq);
      if (!req.dry_run)
        e.seq = 0;
    }
  if (!req.dry_run) {
    for (auto& id : ids) {
      auto i = ops_.find(id);
      if (!i->second.idempotency_key.empty())
        keys_.erase(i->second.idempotency_key);
      ops_.erase(i);
    }
    horizon_ = highest;
  }
  res.horizon = horizon_;
  return res;
}

caf::expected<int64_t> memory_store::horizon() {
  std::lock_guard<std::mutex> guard{mtx_};
  return horizon_;
}

caf::expected<int64_t> memory_store::size_bytes() {
  // Nothing on disk.
  return 0;
}

} // namespace stepwise
