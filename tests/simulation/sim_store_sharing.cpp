// The simulation store's side of several processes sharing it: the load
// each publishes and the share it is told (lease_store's model of
// PostgreSQL's process_leases.held and owner index), operations given up,
// and the notifications PostgreSQL would send (NOTIFY), which the
// simulation delivers to each process late, twice or never.
#include "tests/simulation/sim_store.hpp"

#include "engine/child_notice.hpp"
#include "engine/errc.hpp"

namespace stepwise::sim {

void sim_store::acting(const std::string& owner, const std::string& process) {
  if (!owner.empty())
    me_ = owner;
  process_ = process;
}

void sim_store::notify(const char* channel, std::string payload) {
  if (leasing)
    notices_.push_back(notice{channel, std::move(payload)});
}

std::vector<notice> sim_store::take_notices() {
  return std::exchange(notices_, {});
}

load_view sim_store::count(bool by_rows) {
  load_view v;
  v.live = 0;
  for (auto& [owner, l] : leases_)
    if (!l.ended)
      v.live += 1;
  v.live = std::max<int64_t>(1, v.live);
  if (by_rows)
    v.mine = 0;
  for (auto& id : order_) {
    auto op = peek(id);
    if (!op || is_terminal(op->state))
      continue;
    auto i = owner_of_.find(id);
    if (i == owner_of_.end()) {
      v.unowned += 1;
      continue;
    }
    auto l = leases_.find(i->second);
    if (l == leases_.end() || l->second.ended)
      v.ended_orphans += 1;
    else if (i->second == me_)
      v.mine += by_rows ? 1 : 0;
    else if (by_rows)
      v.others += 1;
  }
  if (!by_rows)
    for (auto& [owner, n] : held_)
      if (owner != me_ && leases_.count(owner) > 0 && !leases_[owner].ended)
        v.others += n;
  return v;
}

caf::expected<load_view> sim_store::publish_load(int64_t held) {
  if (roll(faults.renew_fail)) {
    log_.note("store: publishing the load fails (injected)");
    return make_error(errc::store_failure, "sim: publish failed (injected)");
  }
  if (auto err = renew())
    return err;
  held_[me_] = held;
  end_expired_and_find_orphans(0);
  return count(false);
}

caf::expected<load_view> sim_store::count_load() {
  if (auto err = read_fault("count the load"))
    return err;
  return count(true);
}

caf::expected<std::vector<std::string>> sim_store::release_operations(
  const std::vector<std::string>& ids) {
  if (auto err = read_fault("give operations up"))
    return err;
  if (fenced())
    return make_error(errc::stale_revision, "sim: lease lost");
  std::vector<std::string> out;
  for (auto& id : ids) {
    auto op = peek(id);
    auto i = owner_of_.find(id);
    if (!op || is_terminal(op->state) || i == owner_of_.end() || i->second != me_)
      continue;
    take(*op, std::string{});
    owner_of_.erase(id);
    out.push_back(id);
  }
  if (!out.empty()) {
    log_.note("store: " + me_ + " gives " + std::to_string(out.size()) + " operations up");
    held_[me_] = std::max<int64_t>(0, held_[me_] - static_cast<int64_t>(out.size()));
    notify(balance_channel, me_);
  }
  return out;
}

caf::error sim_store::ask_for_work() {
  notify(balance_channel, me_);
  return caf::none;
}

} // namespace stepwise::sim
