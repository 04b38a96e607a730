#pragma once

#include <functional>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "engine/clock.hpp"
#include "engine/lease_store.hpp"
#include "engine/operation.hpp"
#include "engine/time.hpp"

namespace stepwise {

/// What one lease tick claimed, and how many operations this process
/// should give up to the others.
struct claim_round {
  std::vector<operation> ops;
  size_t shed = 0;
};

/// The engine's side of `lease_store`: this process's owner id, when to
/// claim orphans (which renews the lease too), and joining again after the
/// lease was lost. See lease_store.hpp for the model. Its times are
/// readings of the engine clock's `monotonic()`, so a virtual clock moves
/// leases too.
///
/// Threading: every call blocks on the store; `launch` calls `join` and
/// `claim_share` before the writer thread exists, then only the commit
/// writer's thread calls anything but `owner`, which any thread may call.
class lease_keeper {
public:
  /// `ttl`: the lease period; orphans are claimed every `ttl / 3`, so a dead
  /// process's operations are taken over within `ttl + ttl / 3` of its last
  /// renewal. `claim_batch`: most operations taken per claim call.
  /// `ids`: makes each join's owner id (null: host:pid:random).
  lease_keeper(lease_store& leases, std::shared_ptr<const clock> clk, duration ttl,
               size_t claim_batch, std::function<std::string()> ids = {});

  /// Registers this process under a fresh owner id.
  [[nodiscard]] caf::error join();

  /// The lease tick: publishes `mine` (how many operations this process
  /// drives), then claims as many orphans as its share allows
  /// (engine/share.hpp), oldest first per batch (those of the batches
  /// before one that failed, if any did), and says how many of its own it
  /// should give up. Renews the lease. Fails with `errc::stale_revision`
  /// when the lease was lost.
  [[nodiscard]] caf::expected<claim_round> claim_share(int64_t mine);

  /// Returns when the next claim is due (a `monotonic()` reading).
  duration next_claim() const {
    return next_claim_;
  }

  /// Returns whether a claim is due now.
  bool claim_due() const {
    return clock_->monotonic() >= next_claim_;
  }

  /// Ends the lease (graceful shutdown, after the last commit).
  [[nodiscard]] caf::error leave();

  /// Returns the current owner id (empty before `join`).
  std::string owner() const;

  /// Records that a call which renews the lease (join, commit, claim) and
  /// began at `started` (a `monotonic()` reading) succeeded: the lease
  /// lasts at least until `started + ttl`, whatever the database's clock
  /// says.
  void renewed(duration started);

  /// Returns whether the lease surely still holds now. When not, no
  /// renewal succeeded for a lease period: another process may have taken
  /// the operations over, so none should begin a step until a renewal
  /// succeeds (or the lease is found lost). Any thread.
  bool holds() const;

  /// Records that the lease was found lost: `holds` is false until the
  /// next `join`.
  void lost() {
    valid_until_.store(0, std::memory_order_relaxed);
    leads_.store(false, std::memory_order_relaxed); // joined again, it is the youngest
    epoch_.fetch_add(1, std::memory_order_acq_rel);
  }

  /// Returns how many times the lease was lost (each is then handled by the
  /// dispatcher once, `runtime::leases_lost_handled`): an operation actor
  /// begun under another count belongs to a lease that ended, and must
  /// begin nothing (its stop is on its way). Any thread.
  uint64_t epoch() const {
    return epoch_.load(std::memory_order_acquire);
  }

  /// Returns whether this process runs what must run once for all the
  /// processes sharing the store (retention passes, schedule fires): the
  /// one whose live lease is the oldest. Decided after each claim (which
  /// has just ended the expired leases), so when the leader dies or is
  /// frozen the next oldest takes over within `ttl + ttl / 3`. Two may
  /// both lead for a moment around a change: those duties are safe twice
  /// (a removal finds nothing, a fire is refused by its schedule's
  /// revision), only wasteful. Any thread.
  bool leads() const {
    return leads_.load(std::memory_order_relaxed);
  }

  /// Returns how often orphans are claimed.
  duration claim_period() const {
    return ttl_ / 3;
  }

private:
  /// Reads the live leases and decides `leads`; a failed read keeps the
  /// last decision.
  void elect();

  lease_store& leases_;
  std::function<std::string()> ids_;
  std::shared_ptr<const clock> clock_;
  duration ttl_;
  size_t claim_batch_;
  duration next_claim_;
  /// Joined, and no claim since: the first asks the others for work.
  bool newcomer_ = false;
  /// Until then (a `monotonic()` reading) it claims no operation without
  /// owner: it gave some up, and the others take them.
  duration gave_up_until_{0};
  std::atomic<bool> leads_{false};
  std::atomic<duration::rep> valid_until_{0};
  std::atomic<uint64_t> epoch_{0};
  mutable std::mutex mtx_;
  std::string owner_;
};

/// Returns whether `err` says the lease of this process was ended.
bool is_lease_lost(const caf::error& err);

} // namespace stepwise
