// The PostgreSQL store's side of retention (engine/retention_store.hpp). A
// batch runs in one transaction on a pooled connection, beside the
// commits: only the rows it deletes are locked. Several processes may
// share the database, so the delete checks each row's revision and ended
// state again: an operation another process revived since the batch read
// it stays (its update holds the row, and the delete sees its result).
#include "storage/pg_store.hpp"

#include <limits>

#include "engine/errc.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_params.hpp"
#include "storage/pg_read_pool.hpp"
#include "storage/purge_sql.hpp"

namespace stepwise {

namespace {

std::string pg_provision_of(const std::string& alias) {
  return "(" + alias + ".input::json ->> 'provision_operation_id')";
}

const std::string& candidates_sql() {
  static const std::string sql =
    purge_candidates_sql({"$1::BIGINT", "$2::TEXT", "$3::BIGINT", "$4::BIGINT", "$5::TEXT", "",
                          "o.id", &pg_provision_of, "ended_at"});
  return sql;
}

constexpr auto count_events_sql =
  "SELECT count(*) FROM events WHERE operation_id = ANY($1::TEXT[])";

constexpr auto delete_operations_sql =
  "WITH gone AS (DELETE FROM operations o USING unnest($1::TEXT[], $2::BIGINT[]) "
  "AS c(id, revision) WHERE o.id = c.id AND o.revision = c.revision AND "
  "(o.state = 'succeeded' OR o.state = 'failed' OR o.state = 'canceled') "
  "RETURNING o.id, o.ended_at) SELECT id FROM gone ORDER BY ended_at, id";

constexpr auto delete_events_sql =
  "WITH gone AS (DELETE FROM events WHERE operation_id = ANY($1::TEXT[]) RETURNING seq) "
  "SELECT count(*), COALESCE(MAX(seq), 0) FROM gone";

constexpr auto raise_horizon_sql =
  "UPDATE retention SET horizon = GREATEST(horizon, $1::BIGINT) RETURNING horizon";

constexpr auto horizon_sql = "SELECT horizon FROM retention";

constexpr std::string_view what = "purge";

void note(purge_result& res, std::string_view id) {
  if (res.ids.size() < purge_result::max_ids)
    res.ids.emplace_back(id);
  ++res.operations;
}

caf::expected<int64_t> read_horizon(pg_connection& c) {
  auto r = c.exec(horizon_sql, "reading the retention horizon");
  if (!r)
    return std::move(r.error());
  return r->int64(0, 0);
}

// Runs one statement whose only parameter is `ids`, as a binary array.
caf::expected<pg_result> with_ids(pg_connection& c, const char* sql, const pg_array& ids) {
  pg_params p{1};
  p.add_binary(ids.bytes());
  return c.exec(sql, p, what);
}

// The batch, inside an open transaction.
caf::expected<purge_result> run_batch(pg_connection& c, const purge_request& req) {
  pg_params p{5};
  p.add(to_micros(req.ended_before));
  p.add(req.workflow);
  p.add(static_cast<int64_t>(std::min<size_t>(req.max_operations, size_t{1} << 30)));
  p.add(req.after ? to_micros(req.after->updated_at) : std::numeric_limits<int64_t>::min());
  p.add(req.after ? req.after->id : std::string{});
  auto found = c.exec(candidates_sql().c_str(), p, "purge: finding removable operations");
  if (!found)
    return std::move(found.error());
  purge_result res;
  res.found = static_cast<size_t>(found->rows());
  if (auto n = found->rows(); n > 0)
    res.last =
      purge_position{from_micros(found->int64(n - 1, 2)), std::string{found->text(n - 1, 0)}};
  pg_array ids{pg_array::type::text};
  pg_array revisions{pg_array::type::int8};
  for (int i = 0; i < found->rows(); ++i) {
    ids.add(found->text(i, 0));
    revisions.add(found->int64(i, 1));
  }
  if (req.dry_run) {
    for (int i = 0; i < found->rows(); ++i)
      note(res, found->text(i, 0));
    auto counted = with_ids(c, count_events_sql, ids);
    if (!counted)
      return std::move(counted.error());
    res.events = static_cast<size_t>(counted->int64(0, 0));
    auto h = read_horizon(c);
    if (!h)
      return std::move(h.error());
    res.horizon = *h;
    return res;
  }
  pg_params del{2};
  del.add_binary(ids.bytes());
  del.add_binary(revisions.bytes());
  auto gone = c.exec(delete_operations_sql, del, "purge: removing operations");
  if (!gone)
    return std::move(gone.error());
  pg_array removed{pg_array::type::text};
  for (int i = 0; i < gone->rows(); ++i) {
    note(res, gone->text(i, 0));
    removed.add(gone->text(i, 0));
  }
  auto events = with_ids(c, delete_events_sql, removed);
  if (!events)
    return std::move(events.error());
  res.events = static_cast<size_t>(events->int64(0, 0));
  pg_params h{1};
  h.add(events->int64(0, 1));
  auto raised = c.exec(raise_horizon_sql, h, "purge: raising the retention horizon");
  if (!raised)
    return std::move(raised.error());
  res.horizon = raised->int64(0, 0);
  return res;
}

} // namespace

caf::expected<purge_result> pg_store::purge(const purge_request& req) {
  if (req.max_operations == 0)
    return make_error(errc::invalid_argument, "purge: max_operations must be at least 1");
  return readers_->run([&](pg_connection& c) -> caf::expected<purge_result> {
    // A dry run reads its ids and counts from one snapshot.
    auto begin = req.dry_run ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN";
    if (auto begun = c.exec(begin, what); !begun)
      return std::move(begun.error());
    auto res = run_batch(c, req);
    if (!res) {
      static_cast<void>(c.exec("ROLLBACK", what));
      return res;
    }
    // A dry run wrote nothing: its COMMIT only ends the snapshot.
    if (auto done = c.exec("COMMIT", what); !done)
      return std::move(done.error());
    return res;
  });
}

caf::expected<int64_t> pg_store::horizon() {
  return readers_->run([](pg_connection& c) { return read_horizon(c); });
}

caf::expected<int64_t> pg_store::size_bytes() {
  return readers_->run([](pg_connection& c) -> caf::expected<int64_t> {
    auto r = c.exec("SELECT pg_database_size(current_database())", "reading the database size");
    if (!r)
      return std::move(r.error());
    return r->int64(0, 0);
  });
}

} // namespace stepwise
