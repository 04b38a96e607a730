// The lease_store side of pg_store; see lease_store.hpp for the model.
#include <algorithm>
#include <tuple>

#include "engine/errc.hpp"
#include "storage/op_row.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_migrations.hpp"
#include "storage/pg_params.hpp"
#include "storage/pg_read_pool.hpp"
#include "storage/pg_rows.hpp"
#include "storage/pg_statements.hpp"
#include "storage/pg_store.hpp"

namespace stepwise {

namespace {

constexpr auto join_sql = "INSERT INTO process_leases (owner, started_at, renewed_at, "
                          "lease_expires_at, url, version) SELECT $1, n, n, n + $2, $3, $4 "
                          "FROM stepwise_now_us() AS n ON CONFLICT DO NOTHING RETURNING 1";

// A process below its share with no orphan to claim (it joined, say) asks
// the others to look at theirs at once.
constexpr auto ask_for_work_sql = "SELECT pg_notify('stepwise_balance', $1)";

// Ending expired leases and claiming orphans happen in one transaction.
// The UPDATE locks each expired lease row, so an owner renewing at the same
// moment either renews first (and its row is no longer expired when
// re-checked) or finds it ended. An ended row stays while operations name
// it, so orphans are found through the owner index, not by scanning every
// live operation. SKIP LOCKED leaves operations a concurrent claimer or a
// live owner is writing to.
constexpr auto end_expired_sql = "UPDATE process_leases SET ended = true WHERE NOT ended "
                                 "AND lease_expires_at < stepwise_now_us() AND owner <> $1";

// Live: not ended (the partial indexes' condition, migration 10).
#define SW_ACTIVE "o.ended_at IS NULL"

// Two probes of the owner index, so that a poll finding no orphan costs
// next to nothing with millions of live operations: operations of ended
// owners, and operations without owner. No ORDER BY: with one the planner
// walks every live operation in creation order.
constexpr auto claim_sql =
  "WITH ended AS (SELECT o.id FROM operations o WHERE o.owner = ANY(ARRAY("
  "SELECT owner FROM process_leases WHERE ended)) AND " SW_ACTIVE " LIMIT $2 "
  "FOR UPDATE OF o SKIP LOCKED), "
  "unowned AS (SELECT o.id FROM operations o WHERE o.owner IS NULL AND " SW_ACTIVE
  " LIMIT $2 FOR UPDATE OF o SKIP LOCKED) "
  "UPDATE operations SET owner = $1, revision = revision + 1 "
  "WHERE id IN (SELECT id FROM ended UNION ALL SELECT id FROM unowned "
  "LIMIT $2) RETURNING " STEPWISE_PG_OP_COLUMNS;

// Ended leases that no live operation names any more.
constexpr auto forget_ended_sql =
  "DELETE FROM process_leases e WHERE ended AND NOT EXISTS (SELECT 1 "
  "FROM operations o WHERE o.owner = e.owner AND " SW_ACTIVE ")";

constexpr auto leave_sql = "WITH l AS (UPDATE process_leases SET ended = true WHERE owner = $1 "
                           "RETURNING owner) SELECT pg_notify('stepwise_balance', owner) FROM l";

constexpr auto publish_sql = "UPDATE process_leases SET held = $2 WHERE owner = $1";

// Orphans are counted up to a bound: past it, the share is large anyway.
#define SW_ORPHANS_COUNTED "100000"

constexpr auto load_sql =
  "SELECT count(*), coalesce(sum(held) FILTER (WHERE owner <> $1), 0), "
  "(SELECT count(*) FROM (SELECT 1 FROM operations o WHERE o.owner = ANY(ARRAY("
  "SELECT owner FROM process_leases WHERE ended)) AND " SW_ACTIVE " LIMIT " SW_ORPHANS_COUNTED
  ") e), "
  "(SELECT count(*) FROM (SELECT 1 FROM operations o WHERE o.owner IS NULL AND " SW_ACTIVE
  " LIMIT " SW_ORPHANS_COUNTED ") u) "
  "FROM process_leases WHERE NOT ended";

// Per owner, through the owner index (orphans of ended leases and
// unowned ones included: they are rows of this too).
constexpr auto count_sql =
  "SELECT o.owner, count(*), l.ended FROM operations o LEFT JOIN process_leases l "
  "ON l.owner = o.owner WHERE " SW_ACTIVE " GROUP BY o.owner, l.ended";

constexpr auto live_sql = "SELECT count(*) FROM process_leases WHERE NOT ended";

// Only this process's own live operations; its published count follows.
constexpr auto release_sql =
  "WITH r AS (UPDATE operations o SET owner = NULL, revision = revision + 1 "
  "WHERE o.id = ANY($2::TEXT[]) AND o.owner = $1 AND " SW_ACTIVE " RETURNING o.id), "
  "l AS (UPDATE process_leases SET held = greatest(0, held - (SELECT count(*) FROM r)) "
  "WHERE owner = $1) "
  "SELECT r.id, pg_notify('stepwise_balance', $1) FROM r";

constexpr auto owners_sql = "SELECT owner, started_at, renewed_at, lease_expires_at "
                            "FROM process_leases WHERE NOT ended ORDER BY owner";

// One probe of the owner index per live process.
constexpr auto members_sql =
  "SELECT l.owner, l.started_at, l.renewed_at, l.lease_expires_at, l.url, l.version, "
  "(SELECT count(*) FROM operations o WHERE o.owner = l.owner AND " SW_ACTIVE ") "
  "FROM process_leases l WHERE NOT l.ended ORDER BY l.started_at, l.owner";

// Renews the lease of `fence` on `c`; an ended lease is lost.
caf::error renew_on(pg_connection& c, const pg_fence& fence) {
  auto p = fence.lease_params();
  auto r = c.exec_prepared(pg_stmt::renew_owner, p, "renew lease");
  if (!r)
    return std::move(r.error());
  if (r->rows() == 0)
    return fence.lost();
  return caf::none;
}

// Ends expired leases and claims orphans in one transaction on `c`; a
// failure leaves it open for the caller to roll back.
caf::expected<std::vector<operation>> claim_in_transaction(pg_connection& c, const pg_fence& fence,
                                                           size_t limit) {
  // The planner, trusting statistics that say orphans are many, would
  // scan every live operation even when none is orphaned; the index
  // probes cost next to nothing either way.
  if (auto r = c.exec("BEGIN; SET LOCAL enable_seqscan = off", "claim"); !r)
    return std::move(r.error());
  // Claiming under a lease that was ended would hand the operations to
  // nobody: renew first, which also fails when it was ended.
  if (auto err = renew_on(c, fence))
    return err;
  pg_params p1{1};
  p1.add(fence.owner);
  if (auto r = c.exec(end_expired_sql, p1, "end expired leases"); !r)
    return std::move(r.error());
  pg_params p2{2};
  p2.add(fence.owner);
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
}

// Publishes `held` and reads the load in one transaction on `c`; a
// failure leaves it open for the caller to roll back.
caf::expected<load_view> load_in_transaction(pg_connection& c, const pg_fence& fence,
                                             int64_t held) {
  if (auto r = c.exec("BEGIN; SET LOCAL enable_seqscan = off", "publish load"); !r)
    return std::move(r.error());
  if (auto err = renew_on(c, fence))
    return err;
  pg_params p{2};
  p.add(fence.owner);
  p.add(held);
  if (auto r = c.exec(publish_sql, p, "publish load"); !r)
    return std::move(r.error());
  pg_params me{1};
  me.add(fence.owner);
  if (auto r = c.exec(end_expired_sql, me, "end expired leases"); !r)
    return std::move(r.error());
  auto r = c.exec(load_sql, me, "read the load");
  if (!r)
    return std::move(r.error());
  load_view v;
  v.live = std::max<int64_t>(1, r->int64(0, 0));
  v.others = r->int64(0, 1);
  v.ended_orphans = r->int64(0, 2);
  v.unowned = r->int64(0, 3);
  if (auto done = c.exec("COMMIT", "publish load"); !done)
    return std::move(done.error());
  return v;
}

} // namespace

caf::expected<load_view> pg_store::publish_load(int64_t held) {
  return on_writer(needs_join::yes, [&](pg_connection& c) {
    auto res = load_in_transaction(c, *fence_, held);
    if (!res && !c.broken()) {
      auto ignored = c.exec("ROLLBACK", "rollback");
      static_cast<void>(ignored);
    }
    return res;
  });
}

caf::expected<load_view> pg_store::count_load() {
  using result = caf::expected<load_view>;
  return on_writer(needs_join::yes, [this](pg_connection& c) -> result {
    auto live = c.exec(live_sql, "count the live processes");
    if (!live)
      return std::move(live.error());
    auto r = c.exec(count_sql, "count the operations per process");
    if (!r)
      return std::move(r.error());
    load_view v;
    v.live = std::max<int64_t>(1, live->int64(0, 0));
    v.mine = 0;
    for (int i = 0; i < r->rows(); ++i) {
      auto n = r->int64(i, 1);
      if (r->is_null(i, 0))
        v.unowned += n;
      else if (r->text(i, 0) == fence_->owner)
        v.mine += n;
      else if (r->is_null(i, 2) || r->text(i, 2) == "t")
        v.ended_orphans += n;
      else
        v.others += n;
    }
    return v;
  });
}

caf::expected<std::vector<std::string>> pg_store::release_operations(
  const std::vector<std::string>& ids) {
  using result = caf::expected<std::vector<std::string>>;
  if (ids.empty())
    return std::vector<std::string>{};
  return on_writer(needs_join::yes, [&](pg_connection& c) -> result {
    pg_array arr{pg_array::type::text};
    for (auto& id : ids)
      arr.add(id);
    pg_params p{2};
    p.add(fence_->owner);
    p.add_binary(arr.bytes());
    auto r = c.exec(release_sql, p, "give operations up");
    if (!r)
      return std::move(r.error());
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(r->rows()));
    for (int i = 0; i < r->rows(); ++i)
      out.emplace_back(r->text(i, 0));
    return out;
  });
}

caf::error pg_store::ask_for_work() {
  return on_writer(needs_join::yes, [this](pg_connection& c) -> caf::error {
    pg_params p{1};
    p.add(fence_->owner);
    auto r = c.exec(ask_for_work_sql, p, "ask for work");
    return r ? caf::none : std::move(r.error());
  });
}

caf::error pg_store::join(const std::string& owner, duration ttl) {
  if (owner.empty() || ttl.count() <= 0)
    return make_error(errc::invalid_argument, "pg: join: needs an owner id and a positive ttl");
  return on_writer(needs_join::no, [&](pg_connection& c) -> caf::error {
    // One transaction with the version check: a process of a schema that a
    // newer one migrated meanwhile never takes part (README, "Upgrading").
    auto joined = [&]() -> caf::error {
      if (auto r = c.exec("BEGIN", "join"); !r)
        return std::move(r.error());
      if (auto err = pg_check_version(c))
        return err;
      pg_fence lease{owner, ttl};
      auto p = lease.lease_params();
      p.add(url_);
      p.add(version_);
      auto r = c.exec(join_sql, p, "join");
      if (!r)
        return std::move(r.error());
      if (r->rows() == 0)
        return make_error(errc::invalid_argument, "pg: join: owner id '" + owner + "' is in use");
      if (auto done = c.exec("COMMIT", "join"); !done)
        return std::move(done.error());
      fence_ = std::move(lease);
      return caf::none;
    }();
    if (joined && !c.broken()) {
      auto ignored = c.exec("ROLLBACK", "rollback");
      static_cast<void>(ignored);
    }
    return joined;
  });
}

caf::error pg_store::renew() {
  return on_writer(needs_join::yes, [this](pg_connection& c) { return renew_on(c, *fence_); });
}

caf::expected<std::vector<operation>> pg_store::claim_orphans(size_t limit) {
  return on_writer(needs_join::yes, [&](pg_connection& c) {
    auto res = claim_in_transaction(c, *fence_, limit);
    if (!res && !c.broken()) {
      auto ignored = c.exec("ROLLBACK", "rollback");
      static_cast<void>(ignored);
    }
    return res;
  });
}

caf::expected<std::vector<owner_info>> pg_store::owners() {
  using result = caf::expected<std::vector<owner_info>>;
  return on_writer(needs_join::no, [](pg_connection& c) -> result {
    auto r = c.exec(owners_sql, "owners");
    if (!r)
      return std::move(r.error());
    std::vector<owner_info> out;
    for (int i = 0; i < r->rows(); ++i)
      out.push_back(owner_info{std::string{r->text(i, 0)}, from_micros(r->int64(i, 1)),
                               from_micros(r->int64(i, 2)), from_micros(r->int64(i, 3))});
    return out;
  });
}

void pg_store::describe(std::string url, std::string version) {
  std::unique_lock guard{duty_mtx_};
  url_ = std::move(url);
  version_ = std::move(version);
}

caf::expected<std::vector<owner_info>> pg_store::members() {
  using result = caf::expected<std::vector<owner_info>>;
  return readers_->run([](pg_connection& c) -> result {
    auto r = c.exec(members_sql, "members");
    if (!r)
      return std::move(r.error());
    std::vector<owner_info> out;
    for (int i = 0; i < r->rows(); ++i)
      out.push_back(owner_info{std::string{r->text(i, 0)}, from_micros(r->int64(i, 1)),
                               from_micros(r->int64(i, 2)), from_micros(r->int64(i, 3)),
                               std::string{r->text(i, 4)}, std::string{r->text(i, 5)},
                               r->int64(i, 6)});
    return out;
  });
}

caf::error pg_store::leave() {
  return on_writer(needs_join::yes, [this](pg_connection& c) -> caf::error {
    pg_params p{1};
    p.add(fence_->owner);
    if (auto r = c.exec(leave_sql, p, "leave"); !r)
      return std::move(r.error());
    return caf::none;
  });
}

} // namespace stepwise
