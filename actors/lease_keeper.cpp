#include "actors/lease_keeper.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

#include <unistd.h>

#include "engine/errc.hpp"
#include "engine/random_hex.hpp"
#include "engine/share.hpp"

namespace stepwise {

namespace {

std::string fresh_owner_id() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0)
    host[0] = '\0';
  // The random part tells apart a restarted process that got the same pid
  // (containers start every process as pid 1).
  return std::string{host} + ":" + std::to_string(::getpid()) + ":" + random_hex(16);
}

} // namespace

lease_keeper::lease_keeper(lease_store& leases, std::shared_ptr<const clock> clk, duration ttl,
                           size_t claim_batch, std::function<std::string()> ids)
  : leases_(leases),
    ids_(std::move(ids)),
    clock_(std::move(clk)),
    ttl_(ttl),
    claim_batch_(std::max<size_t>(1, claim_batch)),
    next_claim_(clock_->monotonic()) {
  // nop
}

caf::error lease_keeper::join() {
  auto id = ids_ ? ids_() : fresh_owner_id();
  auto started = clock_->monotonic();
  if (auto err = leases_.join(id, ttl_))
    return err;
  renewed(started);
  newcomer_ = true;
  std::lock_guard<std::mutex> guard{mtx_};
  owner_ = std::move(id);
  return caf::none;
}

caf::expected<claim_round> lease_keeper::claim_share(int64_t mine) {
  // Counted from the start: a slow claim must not stretch the period that
  // bounds takeover time.
  next_claim_ = clock_->monotonic() + claim_period();
  auto started = clock_->monotonic();
  auto view = leases_.publish_load(mine);
  if (!view)
    return std::move(view.error());
  renewed(started);
  auto take_unowned = clock_->monotonic() >= gave_up_until_;
  auto plan = plan_share(*view, mine, take_unowned);
  if (plan.shed > 0) {
    // Counted before anything is given up: the counts published lag
    // behind processes that grow together (a failed count gives nothing
    // up this time).
    auto counted = leases_.count_load();
    plan = counted ? plan_share(*counted, counted->mine, take_unowned) : share_plan{};
    if (plan.shed > 0)
      gave_up_until_ = clock_->monotonic() + 2 * claim_period();
  }
  claim_round out;
  out.shed = plan.shed;
  auto left = plan.claim;
  while (left > 0) {
    auto batch = std::min(claim_batch_, left);
    started = clock_->monotonic();
    auto got = leases_.claim_orphans(batch);
    if (!got) {
      // What the earlier batches took is this process's now, and no other
      // claims it while the lease lives: resumed, not dropped (the
      // simulation found operations left so for ever). The rest waits for
      // the next period.
      if (!out.ops.empty() && !is_lease_lost(got.error()))
        return out;
      return std::move(got.error());
    }
    renewed(started);
    auto n = got->size();
    out.ops.insert(out.ops.end(), std::make_move_iterator(got->begin()),
                   std::make_move_iterator(got->end()));
    left -= n;
    if (n < batch)
      break;
  }
  // A newcomer asks whatever the counts say: the others publish theirs at
  // their ticks, which may be a period old. Only after its first claim,
  // which ended the expired leases: a process woken by the ask renews its
  // lease, and one frozen past its expiry must not (the lease test).
  auto newcomer = std::exchange(newcomer_, false) && view->live > 1;
  if (newcomer || (plan.hungry && left > 0)) {
    // Only a wake-up: the others look at their shares at their next tick
    // anyway.
    auto ignored = leases_.ask_for_work();
    static_cast<void>(ignored);
  }
  elect();
  return out;
}

void lease_keeper::elect() {
  auto live = leases_.owners();
  if (!live)
    return;
  auto me = owner();
  // The oldest lease leads; the owner id breaks a tie.
  auto first = std::min_element(live->begin(), live->end(), [](const auto& a, const auto& b) {
    return std::tie(a.started_at, a.owner) < std::tie(b.started_at, b.owner);
  });
  leads_.store(first != live->end() && first->owner == me, std::memory_order_relaxed);
}

caf::error lease_keeper::leave() {
  return leases_.leave();
}

void lease_keeper::renewed(duration started) {
  auto until = (started + ttl_).count();
  // Monotonic: a slow call finishing late must not shorten what a later
  // one established.
  auto cur = valid_until_.load(std::memory_order_relaxed);
  while (cur < until && !valid_until_.compare_exchange_weak(cur, until, std::memory_order_relaxed))
    ; // retry with the value another thread stored
}

bool lease_keeper::holds() const {
  // A step begun just before the end would run on past it: keep a tenth of
  // the period for that.
  auto margin = ttl_ / 10;
  return (clock_->monotonic() + margin).count() < valid_until_.load(std::memory_order_relaxed);
}

std::string lease_keeper::owner() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return owner_;
}

bool is_lease_lost(const caf::error& err) {
  return code_of(err) == errc::stale_revision;
}

} // namespace stepwise
