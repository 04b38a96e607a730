#include "engine/admission.hpp"

#include <set>
#include <unordered_map>

namespace stepwise {

admission_plan plan_admission(const std::vector<admission_row>& rows,
                              const admission_limits& limits, const admission_held& held) {
  admission_plan plan;
  // The last operation in line per key: the one a newcomer waits behind.
  std::unordered_map<std::string, const std::string*> last_with_key;
  for (auto& [workflow, n] : held.running)
    plan.counts[workflow].running = n;
  // Keys of `rows` first, then `held`'s, looked up rather than copied: a
  // round costs what waits, not what runs.
  auto ahead_of = [&](const std::string& key) -> const std::string* {
    if (auto i = last_with_key.find(key); i != last_with_key.end())
      return i->second;
    if (auto i = held.keys.find(key); i != held.keys.end())
      return &i->second;
    return nullptr;
  };
  for (auto& row : rows) {
    if (row.admission != admission::admitted)
      continue;
    plan.counts[row.workflow].running += 1;
    if (!row.key.empty())
      last_with_key[row.key] = &row.id;
  }
  std::set<std::string> slot_waiters; // workflows with an operation waiting for a slot
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& row = rows[i];
    auto& counts = plan.counts[row.workflow];
    if (row.admission == admission::admitted) {
      if (row.state == op_state::pending)
        plan.startable.push_back(i);
      continue;
    }
    std::string blocker;
    auto* ahead = row.key.empty() ? nullptr : ahead_of(row.key);
    auto limit = limits.find(row.workflow);
    if (ahead)
      blocker = *ahead;
    else if (limit != limits.end()
             && (slot_waiters.count(row.workflow) > 0
                 || counts.running >= static_cast<int64_t>(limit->second)))
      blocker = "limit:" + row.workflow;
    if (!row.key.empty())
      last_with_key[row.key] = &row.id;
    if (blocker.empty()) {
      counts.running += 1;
      plan.admit.push_back(i);
      plan.startable.push_back(i);
      continue;
    }
    counts.queued += 1;
    if (blocker.rfind("limit:", 0) == 0)
      slot_waiters.insert(row.workflow);
    if (blocker != row.blocked_by)
      plan.blocked.emplace_back(i, std::move(blocker));
  }
  return plan;
}

admission_round plan_round(const std::vector<admission_row>& rows, const admission_limits& limits,
                           time_point now, const admission_held& held) {
  auto plan = plan_admission(rows, limits, held);
  admission_round out;
  for (auto i : plan.admit)
    out.updates.push_back({rows[i].id, admission::admitted, {}});
  for (auto& [i, blocker] : plan.blocked) {
    out.updates.push_back({rows[i].id, admission::queued, blocker});
    auto& e = out.events.emplace_back();
    e.time = now;
    e.operation_id = rows[i].id;
    e.type = event_type::operation_queued;
    e.state = std::string{to_string(op_state::pending)};
    e.extra = {{"blocked_by", blocker}};
  }
  for (auto i : plan.startable) {
    out.startable.push_back(rows[i].id);
    out.startable_revisions.push_back(rows[i].revision);
  }
  out.counts = std::move(plan.counts);
  return out;
}

std::string describe_round(const admission_round& r) {
  std::string out;
  for (auto& u : r.updates)
    out += u.id + ":" + std::string{to_string(u.admission)} + ":" + u.blocked_by + " ";
  out += "| ";
  for (size_t i = 0; i < r.startable.size(); ++i)
    out += r.startable[i] + "@" + std::to_string(r.startable_revisions[i]) + " ";
  out += "| ";
  for (auto& [wf, c] : r.counts)
    out += wf + "=" + std::to_string(c.running) + "/" + std::to_string(c.queued) + " ";
  for (auto& e : r.events)
    out += e.operation_id + ":" + std::string{to_string(e.type)} + " ";
  return out;
}

} // namespace stepwise
