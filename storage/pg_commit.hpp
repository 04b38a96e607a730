#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "engine/store.hpp"
#include "engine/time.hpp"
#include "storage/pg_params.hpp"

namespace stepwise {

class pg_connection;

/// The lease that fences a commit: set once the process joined (see
/// `lease_store`).
struct pg_fence {
  /// This process's owner id.
  std::string owner;
  /// How long a renewal extends the lease.
  duration ttl;

  /// Returns the owner and the ttl in microseconds, the parameters of
  /// every statement that starts or renews the lease.
  pg_params lease_params() const {
    pg_params p{2};
    p.add(owner);
    p.add(static_cast<int64_t>(ttl.count()));
    return p;
  }

  /// Returns the error of a call that found the lease ended:
  /// `errc::stale_revision`, "lease lost".
  caf::error lost() const;
};

/// Names a commit so that it can be found after its connection broke
/// during COMMIT: `writer` is one store's writer (random per open), `token`
/// grows with every commit. The transaction records both, with its last
/// event number, in `commit_marks`.
struct pg_commit_mark {
  std::string writer;
  int64_t token = 0;
};

/// Writes `batch` in one transaction on `conn` (the store's write path).
///
/// Two round trips whatever the batch size: the first sends BEGIN and one
/// multi-row statement per kind (create, update), whose RETURNING ids tell
/// which items were written; the second appends the events of those items
/// in one statement and commits. A batch that writes one operation twice
/// is split where the id repeats, so a later write sees the earlier one.
/// Event numbers are taken from a counter row that stays locked until
/// COMMIT, so transactions of several processes commit their numbers in
/// order and a reader never sees seq N+1 before seq N.
///
/// With a `fence`, creates record `fence->owner` as the owner, updates only
/// succeed on operations it owns, and the owner's lease is renewed in the
/// same transaction; when the lease has expired, nothing is written and
/// the error is `errc::stale_revision` ("lease lost").
///
/// When the connection broke after COMMIT may have reached the server, the
/// error says the outcome is unknown and `unsure` holds what the commit
/// would answer (its events not numbered): `pg_resolve` tells later.
///
/// Several connections may commit at once: the writes of their first round
/// trips overlap, and `order` (shared by them, unlocked on the call) is
/// locked before the second, and left locked on success so that the
/// caller answers the commit before the next one takes its seqs. Only the
/// commits with `renew` renew the lease (its row would otherwise make the
/// others wait for their turn): the others' updates are still fenced by
/// each operation's owner.
[[nodiscard]] caf::expected<commit_result> pg_commit(pg_connection& conn,
                                                     const std::vector<checkpoint>& batch,
                                                     const pg_fence* fence, bool renew,
                                                     const pg_commit_mark& mark,
                                                     std::optional<commit_result>& unsure,
                                                     std::unique_lock<std::mutex>& order);

/// Tells whether the commit `mark` (which left `unsure`) was written: once
/// no transaction that may still write the mark is open, reads it. Returns
/// the commit's answer, its events numbered, when it was written; none
/// when it was not (and will not be).
[[nodiscard]] caf::expected<std::optional<commit_result>> pg_resolve(pg_connection& conn,
                                                                     const pg_commit_mark& mark,
                                                                     commit_result& unsure);

} // namespace stepwise
