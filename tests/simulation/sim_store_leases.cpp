// The simulation store's leases: the model of lease_store.hpp as the
// PostgreSQL store keeps it, on the simulation's clock.
#include "tests/simulation/sim_store.hpp"

#include "engine/errc.hpp"

namespace stepwise::sim {

time_point sim_store::now() const {
  return time ? time->now() : time_point{};
}

bool sim_store::fenced() const {
  if (!leasing || me_.empty())
    return false;
  auto i = leases_.find(me_);
  return i == leases_.end() || i->second.ended;
}

bool sim_store::lease_live(const std::string& owner) const {
  auto i = leases_.find(owner);
  return i != leases_.end() && !i->second.ended && i->second.expires > now();
}

bool sim_store::foreign(const checkpoint& cp) {
  if (!leasing || !cp.op || cp.what != checkpoint::kind::update)
    return false;
  auto i = owner_of_.find(cp.op->id);
  if (i == owner_of_.end() || i->second == me_)
    return false;
  // An ended operation is adopted by whoever writes it (a retry).
  auto stored = peek(cp.op->id);
  return stored && !is_terminal(stored->state);
}

std::vector<operation> sim_store::end_expired_and_find_orphans(size_t limit) {
  auto t = now();
  for (auto& [owner, l] : leases_)
    if (!l.ended && l.expires <= t) {
      l.ended = true;
      log_.note("store: the lease of " + owner + " expired and is ended");
    }
  std::vector<operation> out;
  for (auto& id : order_) {
    if (out.size() >= limit)
      break;
    auto op = peek(id);
    if (!op || is_terminal(op->state))
      continue;
    auto i = owner_of_.find(id);
    auto l = i == owner_of_.end() ? leases_.end() : leases_.find(i->second);
    if (l == leases_.end() || l->second.ended)
      out.push_back(std::move(*op));
  }
  return out;
}

operation sim_store::take(const operation& op, const std::string& owner) {
  auto next = op;
  next.revision += 1;
  checkpoint cp;
  cp.what = checkpoint::kind::update;
  cp.op = std::make_shared<const operation>(next);
  auto res = inner_.commit({cp});
  bool ok = res && res->status.size() == 1 && res->status[0] == write_status::ok;
  log_.check(ok, "a claim's revision bump of " + op.id + " was refused");
  if (ok)
    record(cp, write_status::ok); // also ends the check of a write in flight: it is stale now
  owner_of_[op.id] = owner;
  claimed_.insert(op.id);
  return next;
}

void sim_store::another_process_claims() {
  auto orphans = end_expired_and_find_orphans(SIZE_MAX);
  auto t = now();
  auto ghost = "ghost-" + std::to_string(++ghosts_);
  leases_[ghost] = lease{t, t, t, false}; // dies at once: its lease expires now
  for (auto& op : orphans)
    take(op, ghost);
  log_.note("store: another process (" + ghost + ") claims " + std::to_string(orphans.size())
            + " orphans and dies");
}

caf::error sim_store::join(const std::string& owner, duration ttl) {
  if (leases_.count(owner) > 0)
    return make_error(errc::invalid_argument, "sim: owner id " + owner + " is taken");
  auto t = now();
  leases_[owner] = lease{t + ttl, t, t, false};
  // Joined again after a lost lease: the writer abandoned what it was
  // writing under the lost one (a commit whose answer was lost included).
  forget_in_flight(process_);
  unsure_.erase(process_);
  me_ = owner;
  ttl_ = ttl;
  log_.note("store: " + owner + " joins");
  return caf::none;
}

caf::error sim_store::renew() {
  if (fenced()) {
    // The writer drops what it has queued: none of it reaches the store.
    forget_in_flight(process_);
    return make_error(errc::stale_revision, "sim: lease lost");
  }
  auto& l = leases_[me_];
  l.renewed = now();
  l.expires = l.renewed + ttl_;
  return caf::none;
}

caf::expected<std::vector<operation>> sim_store::claim_orphans(size_t limit) {
  if (roll(faults.renew_fail)) {
    log_.note("store: claim fails (injected)");
    return make_error(errc::store_failure, "sim: claim failed (injected)");
  }
  if (auto err = renew())
    return err;
  std::vector<operation> out;
  for (auto& op : end_expired_and_find_orphans(limit))
    out.push_back(take(op, me_));
  if (!out.empty())
    log_.note("store: " + me_ + " claims " + std::to_string(out.size()) + " orphans");
  return out;
}

caf::expected<std::vector<owner_info>> sim_store::owners() {
  std::vector<owner_info> out;
  for (auto& [owner, l] : leases_)
    if (!l.ended)
      out.push_back({owner, l.started, l.renewed, l.expires});
  return out;
}

caf::error sim_store::leave() {
  if (auto i = leases_.find(me_); i != leases_.end()) {
    i->second.ended = true;
    notify(balance_channel, me_);
  }
  return caf::none;
}

} // namespace stepwise::sim
