// The SQLite store's side of retention (engine/retention_store.hpp). A
// batch runs in one write transaction on the write connection: the
// engine's commits wait for it, so batches stay small.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "engine/errc.hpp"
#include "storage/purge_sql.hpp"
#include "storage/sqlite_connection.hpp"
#include "storage/sqlite_read_pool.hpp"
#include "storage/sqlite_store.hpp"

namespace stepwise {

namespace {

std::string sqlite_provision_of(const std::string& alias) {
  return "json_extract(" + alias + ".input, '$.provision_operation_id')";
}

const std::string& candidates_sql() {
  static const std::string sql = purge_candidates_sql(
    {"?1", "?2", "?3", "?4", "?5", " INDEXED BY operations_ended", "+o.id", &sqlite_provision_of});
  return sql;
}

constexpr auto count_events_sql =
  "SELECT count(*), COALESCE(MAX(seq), 0) FROM events WHERE operation_id = ?1";

constexpr auto delete_operation_sql =
  "DELETE FROM operations WHERE id = ?1 AND revision = ?2 AND "
  "(state = 'succeeded' OR state = 'failed' OR state = 'canceled')";

constexpr auto delete_events_sql = "DELETE FROM events WHERE operation_id = ?1 RETURNING seq";

constexpr auto raise_horizon_sql =
  "UPDATE retention SET horizon = MAX(horizon, ?1) RETURNING horizon";

constexpr auto horizon_sql = "SELECT horizon FROM retention";

struct candidate {
  std::string id;
  int64_t revision;
  int64_t updated_at;
};

caf::expected<std::vector<candidate>> find_removable(sqlite_connection& conn,
                                                     const purge_request& req) {
  auto stmt = conn.prepare(candidates_sql());
  if (!stmt)
    return std::move(stmt.error());
  auto& s = **stmt;
  statement_reset reset{s};
  s.bind(1, to_micros(req.ended_before));
  s.bind(2, req.workflow);
  s.bind(3, static_cast<int64_t>(std::min<size_t>(req.max_operations, 1u << 30)));
  s.bind(4, req.after ? to_micros(req.after->updated_at) : std::numeric_limits<int64_t>::min());
  s.bind(5, req.after ? req.after->id : std::string{});
  std::vector<candidate> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW)
    out.push_back({std::string{s.text(0)}, s.int64(1), s.int64(2)});
  if (rc != SQLITE_DONE)
    return conn.failure("purge: finding removable operations", rc);
  return out;
}

// Runs `sql` (one `?1`), which yields one integer per row; calls `f` with each.
template <class F>
caf::error each_int(sqlite_connection& conn, const char* sql, const std::string& arg,
                    std::string_view what, F&& f) {
  auto stmt = conn.prepare(sql);
  if (!stmt)
    return std::move(stmt.error());
  auto& s = **stmt;
  statement_reset reset{s};
  s.bind(1, arg);
  int rc;
  while ((rc = s.step()) == SQLITE_ROW)
    f(s);
  return rc == SQLITE_DONE ? caf::error{} : conn.failure(what, rc);
}

// Records what a batch found: how many, and where the next one resumes.
void found_all(purge_result& res, const std::vector<candidate>& found) {
  res.found = found.size();
  if (!found.empty())
    res.last = purge_position{from_micros(found.back().updated_at), found.back().id};
}

void note(purge_result& res, const std::string& id) {
  if (res.ids.size() < purge_result::max_ids)
    res.ids.push_back(id);
  ++res.operations;
}

caf::expected<int64_t> read_horizon(sqlite_connection& conn) {
  auto stmt = conn.prepare(horizon_sql);
  if (!stmt)
    return std::move(stmt.error());
  statement_reset reset{**stmt};
  auto rc = (*stmt)->step();
  if (rc != SQLITE_ROW)
    return conn.failure("reading the retention horizon", rc);
  return (*stmt)->int64(0);
}

// Answers a dry run: what `remove` would remove now.
caf::expected<purge_result> survey(sqlite_connection& conn, const purge_request& req) {
  auto found = find_removable(conn, req);
  if (!found)
    return std::move(found.error());
  purge_result res;
  found_all(res, *found);
  for (auto& c : *found) {
    note(res, c.id);
    auto err =
      each_int(conn, count_events_sql, c.id, "purge: counting events",
               [&](sqlite_statement& s) { res.events += static_cast<size_t>(s.int64(0)); });
    if (err)
      return err;
  }
  auto h = read_horizon(conn);
  if (!h)
    return std::move(h.error());
  res.horizon = *h;
  return res;
}

// Removes the operations `find_removable` names, inside an open write
// transaction, and raises the horizon past their events.
caf::expected<purge_result> remove(sqlite_connection& conn, const purge_request& req) {
  auto found = find_removable(conn, req);
  if (!found)
    return std::move(found.error());
  purge_result res;
  found_all(res, *found);
  int64_t highest = 0;
  auto del = conn.prepare(delete_operation_sql);
  if (!del)
    return std::move(del.error());
  for (auto& c : *found) {
    statement_reset reset{**del};
    (*del)->bind(1, c.id);
    (*del)->bind(2, c.revision);
    if (auto rc = (*del)->step(); rc != SQLITE_DONE)
      return conn.failure("purge: removing operation " + c.id, rc);
    if (sqlite3_changes(conn.handle()) == 0)
      continue;
    note(res, c.id);
    auto err =
      each_int(conn, delete_events_sql, c.id, "purge: removing events", [&](sqlite_statement& s) {
        ++res.events;
        highest = std::max(highest, s.int64(0));
      });
    if (err)
      return err;
  }
  auto stmt = conn.prepare(raise_horizon_sql);
  if (!stmt)
    return std::move(stmt.error());
  statement_reset reset{**stmt};
  (*stmt)->bind(1, highest);
  if (auto rc = (*stmt)->step(); rc != SQLITE_ROW)
    return conn.failure("purge: raising the retention horizon", rc);
  res.horizon = (*stmt)->int64(0);
  return res;
}

} // namespace

caf::expected<purge_result> sqlite_store::purge(const purge_request& req) {
  if (req.max_operations == 0)
    return make_error(errc::invalid_argument, "purge: max_operations must be at least 1");
  if (!req.dry_run)
    return in_write_transaction<purge_result>([&] { return remove(*writer_, req); });
  auto conn = readers_->acquire();
  if (!conn)
    return std::move(conn.error());
  // One read transaction: the counts and the ids come from one instant.
  if (auto err = (*conn)->exec("BEGIN", "purge: starting a dry run"))
    return err;
  auto res = survey(**conn, req);
  static_cast<void>((*conn)->exec("COMMIT", "purge: ending a dry run"));
  return res;
}

caf::expected<int64_t> sqlite_store::horizon() {
  auto conn = readers_->acquire();
  if (!conn)
    return std::move(conn.error());
  return read_horizon(**conn);
}

caf::expected<int64_t> sqlite_store::size_bytes() {
  int64_t total = 0;
  for (auto suffix : {"", "-wal"}) {
    struct ::stat st = {};
    auto file = path_ + suffix;
    if (::stat(file.c_str(), &st) == 0)
      total += static_cast<int64_t>(st.st_size);
    else if (errno != ENOENT)
      return make_error(errc::store_failure,
                        "reading the size of " + file + ": " + std::strerror(errno));
  }
  return total;
}

} // namespace stepwise
