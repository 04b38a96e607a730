#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "engine/operation.hpp"
#include "engine/time.hpp"

namespace stepwise {

/// A process sharing the store, as the lease table records it.
struct owner_info {
  std::string owner;
  time_point started_at;
  time_point renewed_at;
  time_point lease_expires_at;
  /// Where its clients reach it, and its build (`describe`); empty when
  /// it did not say.
  std::string url{};
  std::string version{};
  /// How many operations it drives (only from `members`: -1 otherwise).
  int64_t operations = -1;
};

/// The load of the processes sharing a store, as one process sees it at
/// its lease tick (`lease_store::publish_load`).
struct load_view {
  /// Live processes (leases not ended), this one included.
  int64_t live = 1;
  /// Operations the other live processes said they drive, at their last
  /// tick.
  int64_t others = 0;
  /// Operations of ended leases (a process that died or left), and
  /// operations without owner (given up by a process above its share):
  /// both counted up to a bound.
  int64_t ended_orphans = 0;
  int64_t unowned = 0;
  /// The operations this process drives, as the store counts them (only
  /// from `count_load`; -1 otherwise).
  int64_t mine = -1;
};

/// Leases for the processes sharing one store (a database): each
/// non-terminal operation is owned by one live process. A store that
/// supports them implements this next to `store` and returns it from
/// `store::leases()`; a store without it serves one process only.
///
/// Model: every process holds one lease row (its owner id and expiry,
/// renewed by every `store::commit` once joined, or by `renew`), and every
/// operation records its owner. An operation whose owner's lease was
/// ended, or that has no owner, is an orphan that `claim_orphans` hands to
/// the caller. A lease that expired is ended by the first process that
/// claims orphans after the expiry; its owner learns it at its next commit or
/// renewal (`errc::stale_revision`, "lease lost") and must stop driving
/// every operation it had.
///
/// Fencing: once joined, `store::commit` writes an update only when this
/// process still owns the operation, or the stored operation is terminal
/// (a retry through any process adopts it; the revision check lets one of
/// two concurrent retries win) (else `write_status::stale_revision`
/// for that item), and nothing at all when the lease was ended (the whole
/// commit fails with `errc::stale_revision`). So a step's result is never
/// recorded by two owners. Creates record this process as the owner.
///
/// Lease times are counted by the database's clock: processes on hosts
/// whose clocks disagree still agree on expiry.
///
/// Engine use (all on blocking threads, never on CAF scheduler threads):
/// 1. start: `join(unique_owner_id, ttl)`, then recover with
///    `claim_orphans(n)` until it returns none (not `load_active`, which
///    returns other processes' operations too);
/// 2. writer thread, every `ttl / 3`, idle or busy: `claim_orphans(n)`
///    and resume what it returns (takeover time <= ttl + ttl / 3); a claim
///    renews the lease first, so an idle process needs no `renew()`;
/// 3. a commit item `stale_revision`: drop that operation's actor (another
///    process owns it now); a whole commit failing with
///    `errc::stale_revision`: this process is fenced, do not retry the
///    batch; stop every operation actor, then `join` with a new id and
///    claim again (or exit);
/// 4. shutdown: `leave()` after the last commit.
///
/// Threading: thread-safe; the calls are serialized with `commit` on the
/// writer connection.
class lease_store {
public:
  virtual ~lease_store() = default;

  /// Registers this process as `owner` with a lease of `ttl` and fences
  /// every later commit by it. `owner` must be new for each process start
  /// (e.g. host, pid and a random part): a taken id is
  /// `errc::invalid_argument`.
  [[nodiscard]] virtual caf::error join(const std::string& owner, duration ttl) = 0;

  /// Extends the lease by its `ttl` from now. For idle periods only: every
  /// commit renews it as well. Fails with `errc::stale_revision` when the
  /// lease was ended.
  [[nodiscard]] virtual caf::error renew() = 0;

  /// Takes over up to `limit` orphaned operations (which ones, when there
  /// are more, is unspecified): ends every expired lease of another owner,
  /// then makes this process the owner of the orphans and bumps their
  /// revision (so a write prepared by the old owner is stale even without
  /// the owner check). Returns them as stored now, oldest first; the caller
  /// resumes them and re-arms their timers.
  [[nodiscard]] virtual caf::expected<std::vector<operation>> claim_orphans(size_t limit) = 0;

  /// Renews the lease, records that this process drives `held` operations,
  /// ends every expired lease of another owner and returns the load of all
  /// (engine/share.hpp decides from it what to claim and what to give up).
  /// A store that does not spread work returns the view of a process
  /// alone, which claims every orphan. Fails with `errc::stale_revision`
  /// when the lease was ended.
  [[nodiscard]] virtual caf::expected<load_view> publish_load(int64_t held) {
    (void)held;
    if (auto err = renew())
      return err;
    return load_view{};
  }

  /// Returns the load as the operations say, counted rather than
  /// published (a scan of the live operations' owner index), with `mine`
  /// set: counts published a period ago lag behind processes that grow
  /// together, so each would look above its share; a process counts
  /// before it gives operations up. Does not renew the lease.
  [[nodiscard]] virtual caf::expected<load_view> count_load() {
    return load_view{};
  }

  /// Gives up `ids`, operations of this process that no actor drives (the
  /// caller holds every request for them meanwhile): each is left without
  /// owner, its revision bumped, for the other processes to claim;
  /// the others are told (a notification) to look at once. Returns those
  /// given up: one that ended or that this process no longer owns is not.
  [[nodiscard]] virtual caf::expected<std::vector<std::string>> release_operations(
    const std::vector<std::string>& ids) {
    (void)ids;
    return std::vector<std::string>{};
  }

  /// Tells the others that this process is below its share and found no
  /// orphan to claim (it joined, say): a process above its share then
  /// gives some up at once rather than at its next tick.
  [[nodiscard]] virtual caf::error ask_for_work() {
    return caf::none;
  }

  /// Returns the leases not ended (live, or expired but not yet ended).
  [[nodiscard]] virtual caf::expected<std::vector<owner_info>> owners() = 0;

  /// Records what `join` stores for the others to see of this process:
  /// where its clients reach it and its build. A store that keeps no such
  /// thing ignores it.
  virtual void describe(std::string url, std::string version) {
    (void)url;
    (void)version;
  }

  /// Returns `owners()` with what each described of itself and how many
  /// operations each drives (for people: it counts, `owners` does not).
  [[nodiscard]] virtual caf::expected<std::vector<owner_info>> members() {
    return owners();
  }

  /// Ends this process's lease now (graceful shutdown, after the last
  /// commit): its operations become orphans that other processes claim at
  /// once. Later commits fail with "lease lost".
  [[nodiscard]] virtual caf::error leave() = 0;
};

} // namespace stepwise
