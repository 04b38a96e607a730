// The simulation store's commits: the faults a seed picks (a commit that
// fails, one written whose answer is lost), the owner check of a store that
// processes share, and the notifications a commit sends.
#include "tests/simulation/sim_store.hpp"

#include "engine/child_notice.hpp"
#include "engine/errc.hpp"

namespace stepwise::sim {

caf::expected<commit_result> sim_store::commit(const std::vector<checkpoint>& batch) {
  auto u = unsure_.find(process_);
  bool same = u != unsure_.end() && u->second.batch.size() == batch.size();
  for (size_t i = 0; same && i < batch.size(); ++i)
    same = u->second.batch[i] == item_of(batch[i]);
  // Another batch after the lease was lost: the writer abandoned the
  // unsure one with the lease (it retries nothing of an older epoch).
  if (u != unsure_.end() && !same && fenced()) {
    unsure_.erase(u);
    u = unsure_.end();
  }
  if (u != unsure_.end()) {
    auto res = std::move(u->second.res);
    unsure_.erase(u);
    log_.check(same, "the writer's next commit after an unsure one was another batch");
    if (same) {
      log_.note("store: retry of the unsure commit is told it was written");
      res.renewed_lease = false; // as PostgreSQL's: renewed then, not now
      return res;
    }
  }
  if (fenced()) {
    log_.note("store: commit of " + std::to_string(batch.size()) + " refused: the lease was lost");
    // Never written here: the next owner runs them again.
    for (auto& cp : batch)
      if (cp.op)
        claimed_.insert(cp.op->id);
    return renew(); // the lease lost, and what was queued gone
  }
  if (roll(faults.commit_fail)) {
    log_.note("store: commit of " + std::to_string(batch.size()) + " fails (injected)");
    // As SQLite's failed transaction: the mirror reads the store again.
    mirror_.invalidate();
    return make_error(errc::store_failure, "sim: commit failed (injected)");
  }
  auto res = commit_owned(batch);
  if (!res)
    return res;
  if (log_.tracing()) {
    std::string line = "store: commit";
    for (auto& cp : batch)
      line += cp.op ? " [" + cp.op->id + " rev " + std::to_string(cp.op->revision) + " "
                        + std::string{to_string(cp.op->state)} + "]"
                    : " [schedule " + cp.sched->id + " rev " + std::to_string(cp.sched->revision)
                        + (cp.what == checkpoint::kind::schedule_delete ? " deleted]" : "]");
    for (auto& e : res->events)
      line += " " + std::to_string(e.seq) + ":" + std::string{to_string(e.type)};
    log_.note(std::move(line));
  }
  bool schedules = false;
  for (size_t i = 0; i < batch.size(); ++i) {
    record(batch[i], res->status[i]);
    if (res->status[i] != write_status::ok)
      continue;
    check_by(batch[i]);
    if (batch[i].sched)
      schedules = true;
    if (batch[i].consumed_command != 0)
      consume(batch[i]);
    if (auto& op = batch[i].op; op && !op->parent_id.empty() && is_terminal(op->state))
      notify(child_ended_channel, child_ended_payload(me_, *op));
  }
  if (schedules)
    notify(schedules_channel, me_);
  for (auto& e : res->events)
    on_event(e);
  if (roll(faults.commit_unsure)) {
    log_.note("store: commit of " + std::to_string(batch.size())
              + " written, answer lost (injected)");
    auto& u = unsure_[process_];
    u.res = *res;
    u.batch.clear();
    for (auto& cp : batch)
      u.batch.push_back(item_of(cp));
    return make_error(errc::store_failure, "sim: connection lost during COMMIT (injected)");
  }
  return res;
}

caf::expected<commit_result> sim_store::commit_owned(const std::vector<checkpoint>& batch) {
  if (!leasing)
    return inner_.commit(batch);
  // The owner check, per item: another owner's operations are refused.
  std::vector<checkpoint> mine;
  std::vector<size_t> where(batch.size(), SIZE_MAX);
  for (size_t i = 0; i < batch.size(); ++i) {
    // As PostgreSQL's update: one that carries out a stored command only
    // while it is stored (another process may have refused it meanwhile).
    auto cmd = batch[i].consumed_command;
    if (cmd != 0 && commands_.count(cmd) == 0) {
      log_.note("store: " + batch[i].op->id + " carries out command " + std::to_string(cmd)
                + ", gone since: refused");
      claimed_.insert(batch[i].op->id);
      continue;
    }
    if (!foreign(batch[i])) {
      where[i] = mine.size();
      mine.push_back(batch[i]);
    }
  }
  commit_result res;
  if (!mine.empty()) {
    auto written = inner_.commit(mine);
    if (!written)
      return written;
    res = std::move(*written);
  }
  std::vector<write_status> status(batch.size(), write_status::stale_revision);
  for (size_t i = 0; i < batch.size(); ++i) {
    if (where[i] == SIZE_MAX) {
      // Its process lost it (fencing at work), or its command is gone:
      // stale, as after a claim.
      claimed_.insert(batch[i].op->id);
      continue;
    }
    status[i] = res.status[where[i]];
    if (status[i] == write_status::ok && batch[i].op)
      owner_of_[batch[i].op->id] = me_;
  }
  res.status = std::move(status);
  // Every commit renews the lease.
  auto& l = leases_[me_];
  l.renewed = now();
  l.expires = l.renewed + ttl_;
  res.renewed_lease = true;
  return res;
}

} // namespace stepwise::sim
