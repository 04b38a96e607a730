// The lease_store side of pg_store; see lease_store.hpp for the model.
#include <algorithm>
#include <tuple>

#include "engine/errc.hpp"
#include "storage/op_row.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_rows.hpp"
#include "storage/pg_statements.hpp"
#include "storage/pg_store.hpp"

namespace stepwise {

namespace {

constexpr auto join_sql
  = "INSERT INTO engine_owners (owner, started_at, renewed_at, "
    "lease_expires_at) SELECT $1, n, n, n + $2 FROM stepwise_now_us() AS n "
    "ON CONFLICT DO NOTHING RETURNING 1";

// Ending expired leases and claiming orphans happen in one transaction.
// The UPDATE locks each expired lease row, so an owner renewing at the same
// moment either renews first (and its row is no longer expired when
// re-checked) or finds it ended. An ended row stays while operations name
// it, so orphans are found through the owner index, not by scanning every
// live operation. SKIP LOCKED leaves operations a concurrent claimer or a
// live owner is writing to.
constexpr auto end_expired_sql
  = "UPDATE engine_owners SET ended = true WHERE NOT ended "
    "AND lease_expires_at < stepwise_now_us() AND owner <> $1";

#define SW_ACTIVE "o.state NOT IN ('succeeded', 'failed', 'canceled')"

// Two probes of the owner index, so that a poll finding no orphan costs
// next to nothing with millions of live operations: operations of ended
// owners, and operations without owner. No ORDER BY: with one the planner
// walks every live operation in creation order.
constexpr auto claim_sql
  = "WITH ended AS (SELECT o.id FROM operations o WHERE o.owner = ANY(ARRAY("
    "SELECT owner FROM engine_owners WHERE ended)) AND " SW_ACTIVE " LIMIT $2 "
    "FOR UPDATE OF o SKIP LOCKED), "
    "unowned AS (SELECT o.id FROM operations o WHERE o.owner IS NULL AND "
    SW_ACTIVE " LIMIT $2 FOR UPDATE OF o SKIP LOCKED) "
    "UPDATE operations SET owner = $1, revision = revision + 1 "
    "WHERE id IN (SELECT id FROM ended UNION ALL SELECT id FROM unowned "
    "LIMIT $2) RETURNING " STEPWISE_OP_COLUMNS;

// Ended leases that no live operation names any more.
constexpr auto forget_ended_sql
  = "DELETE FROM engine_owners e WHERE ended AND NOT EXISTS (SELECT 1 "
    "FROM operations o WHERE o.owner = e.owner AND " SW_ACTIVE ")";

constexpr auto leave_sql
  = "UPDATE engine_owners SET ended = true WHERE owner = $1";

constexpr auto owners_sql
  = "SELECT owner, started_at, renewed_at, lease_expires_at "
    "FROM engine_owners WHERE NOT ended ORDER BY owner";

caf::error lease_lost(const std::string& owner) {
  return make_error(errc::stale_revision, "pg: lease lost: owner '" + owner
                                            + "' expired or was taken over");
}

caf::error not_joined() {
  return make_error(errc::invalid_state, "pg: lease: join first");
}

// The parameters of `pg_stmt::renew_owner` for this process's lease.
pg_params renew_params(const pg_fence& fence) {
  pg_params p{2};
  p.add(fence.owner);
  p.add(static_cast<int64_t>(fence.ttl.count()));
  return p;
}

} // namespace

caf::error pg_store::join(const std::string& owner, duration ttl) {
  if (owner.empty() || ttl.count() <= 0)
    return make_error(errc::invalid_argument,
                      "pg: join: needs an owner id and a positive ttl");
  std::lock_guard guard{write_mtx_};
  auto conn = writer();
  if (!conn)
    return std::move(conn.error());
  pg_params p{2};
  p.add(owner);
  p.add(static_cast<int64_t>(ttl.count()));
  auto r = (*conn)->exec(join_sql, p, "join");
  forget_if_broken();
  if (!r)
    return std::move(r.error());
  if (r->rows() == 0)
    return make_error(errc::invalid_argument,
                      "pg: join: owner id '" + owner + "' is in use");
  fence_ = pg_fence{owner, ttl};
  return caf::none;
}

caf::error pg_store::renew() {
  std::lock_guard guard{write_mtx_};
  if (!fence_)
    return not_joined();
  auto conn = writer();
  if (!conn)
    return std::move(conn.error());
  auto p = renew_params(*fence_);
  auto r = (*conn)->exec_prepared(pg_stmt::renew_owner, p, "renew lease");
  forget_if_broken();
  if (!r)
    return std::move(r.error());
  if (r->rows() == 0)
    return lease_lost(fence_->owner);
  return caf::none;
}

caf::expected<std::vector<operation>> pg_store::claim_orphans(size_t limit) {
  std::lock_guard guard{write_mtx_};
  if (!fence_)
    return not_joined();
  auto conn = writer();
  if (!conn)
    return std::move(conn.error());
  auto& c = **conn;
  auto run = [&]() -> caf::expected<std::vector<operation>> {
    // The planner, trusting statistics that say orphans are many, would
    // scan every live operation even when none is orphaned; the index
    // probes cost next to nothing either way.
    if (auto r = c.exec("BEGIN; SET LOCAL enable_seqscan = off", "claim"); !r)
      return std::move(r.error());
    // Claiming under a lease that was ended would hand the operations to
    // nobody: renew first, which also fails when it was ended.
    auto p0 = renew_params(*fence_);
    auto mine = c.exec_prepared(pg_stmt::renew_owner, p0, "renew lease");
    if (!mine)
      return std::move(mine.error());
    if (mine->rows() == 0)
      return lease_lost(fence_->owner);
    pg_params p1{1};
    p1.add(fence_->owner);
    if (auto r = c.exec(end_expired_sql, p1, "end expired leases"); !r)
      return std::move(r.error());
    pg_params p2{2};
    p2.add(fence_->owner);
    p2.add(static_cast<int64_t>(std::min<size_t>(limit, size_t{1} << 30)));
    auto r = c.exec(claim_sql, p2, "claim orphans");
    if (!r)
      return std::move(r.error());
    auto ops = pg_read_operations(*r);
    if (!ops)
      return std::move(ops.error());
    std::sort(ops->begin(), ops->end(), [](auto& x, auto& y) {
      return std::tie(x.created_at, x.id) < std::tie(y.created_at, y.id);
    });
    if (auto f = c.exec(forget_ended_sql, "forget ended leases"); !f)
      return std::move(f.error());
    if (auto done = c.exec("COMMIT", "claim"); !done)
      return std::move(done.error());
    return ops;
  };
  auto res = run();
  if (!res && !c.broken()) {
    auto ignored = c.exec("ROLLBACK", "rollback");
    static_cast<void>(ignored);
  }
  forget_if_broken();
  return res;
}

caf::expected<std::vector<owner_info>> pg_store::owners() {
  std::lock_guard guard{write_mtx_};
  auto conn = writer();
  if (!conn)
    return std::move(conn.error());
  auto r = (*conn)->exec(owners_sql, "owners");
  forget_if_broken();
  if (!r)
    return std::move(r.error());
  std::vector<owner_info> out;
  for (int i = 0; i < r->rows(); ++i)
    out.push_back(owner_info{std::string{r->text(i, 0)},
                             from_micros(r->int64(i, 1)),
                             from_micros(r->int64(i, 2)),
                             from_micros(r->int64(i, 3))});
  return out;
}

caf::error pg_store::leave() {
  std::lock_guard guard{write_mtx_};
  if (!fence_)
    return not_joined();
  auto conn = writer();
  if (!conn)
    return std::move(conn.error());
  pg_params p{1};
  p.add(fence_->owner);
  auto r = (*conn)->exec(leave_sql, p, "leave");
  forget_if_broken();
  if (!r)
    return std::move(r.error());
  return caf::none;
}

} // namespace stepwise
