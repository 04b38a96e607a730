// The sink_store side of sqlite_store: the outbox's cursors and leases.
// Writes go through the one write connection (a second writer would make
// the engine's commits wait in SQLite's sleeping busy handler), in small
// transactions without an fsync of their own.

#include <chrono>
#include <exception>

#include "engine/errc.hpp"
#include "storage/sink_rows.hpp"
#include "storage/sqlite_connection.hpp"
#include "storage/sqlite_read_pool.hpp"
#include "storage/sqlite_store.hpp"

namespace stepwise {

namespace {

int64_t now_us() {
  return to_micros(std::chrono::time_point_cast<duration>(std::chrono::system_clock::now()));
}

constexpr auto insert_sink_sql =
  "INSERT INTO sink_cursors (name, cursor, created_at) VALUES (?1, "
  "CASE WHEN ?2 THEN COALESCE((SELECT seq FROM sqlite_sequence WHERE name "
  "= 'events'), 0) ELSE 0 END, ?3) ON CONFLICT (name) DO NOTHING";

constexpr auto take_sink_sql =
  "UPDATE sink_cursors SET holder = ?2, lease_expires_at = ?3 + ?4 "
  "WHERE name = ?1 AND (holder = ?2 OR holder = '' OR lease_expires_at < ?3 "
  "OR ?5) RETURNING cursor";

// Right-hand sides see the old row: delivered_at moves with the cursor.
constexpr auto update_sink_sql =
  "UPDATE sink_cursors SET "
  "delivered_at = CASE WHEN ?3 > cursor THEN ?4 ELSE delivered_at END, "
  "cursor = MAX(cursor, ?3), lease_expires_at = ?4 + ?5, "
  "last_error = COALESCE(?6, last_error), "
  "failed_at = CASE WHEN ?6 IS NULL OR ?6 = '' THEN failed_at ELSE ?4 END "
  "WHERE name = ?1 AND holder = ?2";

constexpr auto release_sink_sql = "UPDATE sink_cursors SET holder = '', lease_expires_at = 0 "
                                  "WHERE name = ?1 AND holder = ?2";

} // namespace

caf::error sqlite_store::light_write(std::string_view what,
                                     const std::function<caf::error(sqlite_connection&)>& fun) {
  std::lock_guard<std::mutex> guard{write_mtx_};
  auto& conn = *writer_;
  // NORMAL in WAL mode: the transaction survives a crash of the process,
  // and the engine's next FULL commit syncs the WAL with it in.
  if (auto err = conn.exec("PRAGMA synchronous = NORMAL", what))
    return err;
  caf::error err;
  try {
    err = conn.exec("BEGIN IMMEDIATE", what);
    if (!err)
      err = fun(conn);
    if (!err)
      err = conn.exec("COMMIT", what);
  } catch (const std::exception& ex) {
    err = make_error(errc::store_failure, std::string{what} + " failed: " + ex.what());
  }
  if (err && sqlite3_get_autocommit(conn.handle()) == 0)
    static_cast<void>(conn.exec("ROLLBACK", what));
  auto restore =
    sync_ == sqlite_sync::full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL";
  if (auto again = conn.exec(restore, what); again && !err)
    err = std::move(again);
  return err;
}

caf::expected<std::optional<int64_t>> sqlite_store::acquire_sink(const std::string& name,
                                                                 const std::string& holder,
                                                                 duration ttl, sink_start start,
                                                                 bool steal) {
  std::optional<int64_t> granted;
  auto what = "acquiring sink " + name;
  auto err = light_write(what, [&](sqlite_connection& conn) -> caf::error {
    auto now = now_us();
    auto ins = conn.prepare(insert_sink_sql);
    if (!ins)
      return std::move(ins.error());
    (*ins)->bind(1, name);
    (*ins)->bind(2, int64_t{start == sink_start::end ? 1 : 0});
    (*ins)->bind(3, now);
    if (auto e = conn.run(**ins, what))
      return e;
    auto take = conn.prepare(take_sink_sql);
    if (!take)
      return std::move(take.error());
    auto& s = **take;
    statement_reset reset{s};
    s.bind(1, name);
    s.bind(2, holder);
    s.bind(3, now);
    s.bind(4, static_cast<int64_t>(ttl.count()));
    s.bind(5, int64_t{steal ? 1 : 0});
    auto rc = s.step();
    if (rc == SQLITE_ROW) {
      granted = s.int64(0);
      rc = s.step();
    }
    if (rc != SQLITE_DONE)
      return conn.failure(what, rc);
    return caf::error{};
  });
  if (err)
    return err;
  return granted;
}

caf::error sqlite_store::update_sink(const std::string& name, const std::string& holder,
                                     duration ttl, const sink_progress& p) {
  auto what = "updating sink " + name;
  bool held = false;
  auto err = light_write(what, [&](sqlite_connection& conn) -> caf::error {
    auto stmt = conn.prepare(update_sink_sql);
    if (!stmt)
      return std::move(stmt.error());
    auto& s = **stmt;
    s.bind(1, name);
    s.bind(2, holder);
    s.bind(3, p.cursor);
    s.bind(4, now_us());
    s.bind(5, static_cast<int64_t>(ttl.count()));
    if (p.error)
      s.bind(6, *p.error);
    else
      s.bind_null(6);
    if (auto e = conn.run(s, what))
      return e;
    held = sqlite3_changes(conn.handle()) > 0;
    return caf::error{};
  });
  if (err)
    return err;
  return held ? caf::error{} : sink_lease_lost(name);
}

caf::error sqlite_store::release_sink(const std::string& name, const std::string& holder) {
  auto what = "releasing sink " + name;
  return light_write(what, [&](sqlite_connection& conn) -> caf::error {
    auto stmt = conn.prepare(release_sink_sql);
    if (!stmt)
      return std::move(stmt.error());
    (*stmt)->bind(1, name);
    (*stmt)->bind(2, holder);
    return conn.run(**stmt, what);
  });
}

caf::expected<std::vector<sink_record>> sqlite_store::sink_records() {
  auto conn = readers_->acquire();
  if (!conn)
    return std::move(conn.error());
  auto stmt = (*conn)->prepare("SELECT " STEPWISE_SINK_COLUMNS " FROM sink_cursors ORDER BY name");
  if (!stmt)
    return std::move(stmt.error());
  std::vector<sink_record> out;
  statement_reset reset{**stmt};
  for (;;) {
    auto rc = (*stmt)->step();
    if (rc == SQLITE_DONE)
      return out;
    if (rc != SQLITE_ROW)
      return (*conn)->failure("reading sinks", rc);
    out.push_back(read_sink_record(**stmt));
  }
}

} // namespace stepwise
