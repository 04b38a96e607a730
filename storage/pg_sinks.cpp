// The sink_store side of pg_store: the outbox's cursors and leases, on the
// pooled connections (one autocommit statement each), so that they never
// wait behind a commit on the writer connection. Lease times follow the
// database's clock, as the engine's leases do.

#include "storage/pg_connection.hpp"
#include "storage/pg_read_pool.hpp"
#include "storage/pg_reads.hpp"
#include "storage/pg_rows.hpp"
#include "storage/pg_store.hpp"
#include "storage/sink_rows.hpp"

namespace stepwise {

namespace {

constexpr auto pg_insert_sink_sql =
  "INSERT INTO sink_cursors (name, cursor, created_at) SELECT $1, "
  "CASE WHEN $2::BOOLEAN THEN (SELECT last_seq FROM event_counter "
  "WHERE id = 1) ELSE 0 END, stepwise_now_us() ON CONFLICT (name) DO NOTHING";

// The row lock serializes two processes taking the sink at once: the
// second re-checks the condition on the first one's row and finds it held.
constexpr auto pg_take_sink_sql =
  "UPDATE sink_cursors SET holder = $2, "
  "lease_expires_at = stepwise_now_us() + $3::BIGINT WHERE name = $1 AND "
  "(holder = $2 OR holder = '' OR lease_expires_at < stepwise_now_us() "
  "OR $4::BOOLEAN) RETURNING cursor";

// Right-hand sides see the old row: delivered_at moves with the cursor.
constexpr auto pg_update_sink_sql =
  "UPDATE sink_cursors SET "
  "delivered_at = CASE WHEN $3::BIGINT > cursor THEN stepwise_now_us() "
  "ELSE delivered_at END, cursor = GREATEST(cursor, $3::BIGINT), "
  "lease_expires_at = stepwise_now_us() + $4::BIGINT, "
  "last_error = COALESCE($5::TEXT, last_error), "
  "failed_at = CASE WHEN $5::TEXT IS NULL OR $5::TEXT = '' THEN failed_at "
  "ELSE stepwise_now_us() END WHERE name = $1 AND holder = $2 RETURNING 1";

constexpr auto pg_release_sink_sql = "UPDATE sink_cursors SET holder = '', lease_expires_at = 0 "
                                     "WHERE name = $1 AND holder = $2";

constexpr auto sinks_sql = "SELECT " STEPWISE_SINK_COLUMNS " FROM sink_cursors ORDER BY name";

} // namespace

caf::expected<std::vector<routed_event>> pg_store::routed_events_after(int64_t after,
                                                                       size_t limit) {
  return readers_->run(
    [&](pg_connection& c) { return pg_reads::routed_events_after(c, after, limit); });
}

caf::expected<std::optional<int64_t>> pg_store::acquire_sink(const std::string& name,
                                                             const std::string& holder,
                                                             duration ttl, sink_start start,
                                                             bool steal) {
  using result = caf::expected<std::optional<int64_t>>;
  return readers_->run([&](pg_connection& c) -> result {
    pg_params ins{2};
    ins.add(name);
    ins.add(start == sink_start::end ? "t" : "f");
    if (auto r = c.exec(pg_insert_sink_sql, ins, "create sink"); !r)
      return std::move(r.error());
    pg_params take{4};
    take.add(name);
    take.add(holder);
    take.add(static_cast<int64_t>(ttl.count()));
    take.add(steal ? "t" : "f");
    auto r = c.exec(pg_take_sink_sql, take, "acquire sink");
    if (!r)
      return std::move(r.error());
    if (r->rows() == 0)
      return std::optional<int64_t>{};
    return std::optional<int64_t>{r->int64(0, 0)};
  });
}

caf::error pg_store::update_sink(const std::string& name, const std::string& holder, duration ttl,
                                 const sink_progress& prog) {
  auto res = readers_->run([&](pg_connection& c) -> caf::expected<bool> {
    pg_params p{5};
    p.add(name);
    p.add(holder);
    p.add(prog.cursor);
    p.add(static_cast<int64_t>(ttl.count()));
    if (prog.error)
      p.add(*prog.error);
    else
      p.add_null();
    auto r = c.exec(pg_update_sink_sql, p, "update sink");
    if (!r)
      return std::move(r.error());
    return r->rows() > 0;
  });
  if (!res)
    return std::move(res.error());
  return *res ? caf::error{} : sink_lease_lost(name);
}

caf::error pg_store::release_sink(const std::string& name, const std::string& holder) {
  auto res = readers_->run([&](pg_connection& c) -> caf::expected<bool> {
    pg_params p{2};
    p.add(name);
    p.add(holder);
    if (auto r = c.exec(pg_release_sink_sql, p, "release sink"); !r)
      return std::move(r.error());
    return true;
  });
  return res ? caf::error{} : std::move(res.error());
}

caf::expected<std::vector<sink_record>> pg_store::sink_records() {
  using result = caf::expected<std::vector<sink_record>>;
  return readers_->run([](pg_connection& c) -> result {
    auto r = c.exec(sinks_sql, "sinks");
    if (!r)
      return std::move(r.error());
    std::vector<sink_record> out;
    for (int i = 0; i < r->rows(); ++i)
      out.push_back(read_sink_record(pg_row{*r, i}));
    return out;
  });
}

} // namespace stepwise
