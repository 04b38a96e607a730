#include "storage/pg_migrations.hpp"

#include <iterator>
#include <string>

#include "engine/errc.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_migration_list.hpp"
#include "storage/schema_version.hpp"

namespace stepwise {

namespace {

// Rolls back whatever a failed step left open; the error to report is the
// one that caused it.
caf::error abort_with(pg_connection& conn, caf::error err) {
  auto ignored = conn.exec("ROLLBACK", "rollback");
  static_cast<void>(ignored);
  return err;
}

caf::error apply(pg_connection& conn, const pg_migration& m) {
  auto what = "migration " + std::to_string(m.version) + " (" + m.name + ")";
  if (auto r = conn.exec("BEGIN", what); !r)
    return std::move(r.error());
  if (auto r = conn.exec(m.sql, what); !r)
    return abort_with(conn, std::move(r.error()));
  pg_params p{2};
  p.add(static_cast<int32_t>(m.version));
  p.add(m.name);
  auto rec = conn.exec("INSERT INTO schema_migrations (version, name, "
                       "applied_at) VALUES ($1, $2, (extract(epoch FROM "
                       "clock_timestamp()) * 1000000)::BIGINT)",
                       p, what);
  if (!rec)
    return abort_with(conn, std::move(rec.error()));
  if (auto r = conn.exec("COMMIT", what); !r)
    return std::move(r.error());
  return caf::none;
}

// Reads the schema version; refuses one newer than this build.
caf::expected<int64_t> known_version(pg_connection& conn) {
  auto cur =
    conn.exec("SELECT coalesce(max(version), 0) FROM schema_migrations", "read schema version");
  if (!cur)
    return std::move(cur.error());
  auto have = cur->int64(0, 0);
  if (have > pg_schema_version())
    return newer_schema_error("pg", have, pg_schema_version());
  return have;
}

// Processes of the version the database is at may be running: they
// prepared their statements against its schema and would fail, or write
// wrong rows, once it changed under them. A live lease (not ended, not
// expired on the database clock) names such a process. Leases exist from
// migration 2 on; migration 6 renamed their table.
caf::error refuse_live_processes(pg_connection& conn, int64_t have, int target) {
  if (have < 2)
    return caf::none;
  std::string sql = "SELECT owner FROM ";
  sql += have >= 6 ? "process_leases" : "engine_owners";
  sql += " WHERE NOT ended AND lease_expires_at > stepwise_now_us() ORDER BY owner";
  auto live = conn.exec(sql.c_str(), "read live leases before migrating");
  if (!live)
    return std::move(live.error());
  auto n = live->rows();
  if (n == 0)
    return caf::none;
  std::string names;
  for (int i = 0; i < n && i < 5; ++i)
    names += (i > 0 ? ", " : "") + std::string{live->text(i, 0)};
  if (n > 5)
    names += ", ...";
  return make_error(errc::store_failure,
                    "pg: the database is at schema version " + std::to_string(have)
                      + " and this stepwise would migrate it to " + std::to_string(target)
                      + ", but " + std::to_string(n)
                      + " process(es) of the older version hold live leases on it (" + names
                      + "): stop them first (a crashed one's lease expires after its "
                        "--lease-ttl), then start this one; nothing was written");
}

caf::error migrate_locked(pg_connection& conn, int target) {
  auto made = conn.exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
                        "version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                        "applied_at BIGINT NOT NULL)",
                        "create schema_migrations");
  if (!made)
    return std::move(made.error());
  auto known = known_version(conn);
  if (!known)
    return std::move(known.error());
  auto have = *known;
  if (have > 0 && have < target)
    if (auto err = refuse_live_processes(conn, have, target))
      return err;
  for (auto& m : pg_migrations())
    if (m.version > have && m.version <= target)
      if (auto err = apply(conn, m))
        return err;
  return caf::none;
}

} // namespace

int pg_schema_version() {
  return pg_migrations().back().version;
}

caf::error pg_migrate(pg_connection& conn, int target) {
  auto schema = conn.exec("SELECT current_schema() IS NOT NULL", "read current schema");
  if (!schema)
    return std::move(schema.error());
  if (schema->text(0, 0) != "t")
    return make_error(errc::store_failure, "pg: no schema of the search_path exists");
  // Keyed by schema so that test schemas of one database migrate in
  // parallel; 0x5753 ("SW") keeps our keys apart from other programs'.
  constexpr auto lock_sql = "SELECT pg_advisory_lock(22355, "
                            "hashtext(current_schema()))";
  constexpr auto unlock_sql = "SELECT pg_advisory_unlock(22355, "
                              "hashtext(current_schema()))";
  if (auto r = conn.exec(lock_sql, "lock for migration"); !r)
    return std::move(r.error());
  auto err = migrate_locked(conn, target);
  // A failed unlock only matters while the session lives; the caller
  // drops a failed connection, which releases the lock.
  auto unlocked = conn.exec(unlock_sql, "unlock after migration");
  if (!err && !unlocked)
    return std::move(unlocked.error());
  return err;
}

caf::error pg_check_version(pg_connection& conn) {
  // Shared: joins do not wait for each other, only for a migration, which
  // holds the lock exclusively from its check of the leases to its end.
  constexpr auto lock_sql = "SELECT pg_advisory_xact_lock_shared(22355, "
                            "hashtext(current_schema()))";
  if (auto r = conn.exec(lock_sql, "wait for a migration"); !r)
    return std::move(r.error());
  auto known = known_version(conn);
  return known ? caf::none : std::move(known.error());
}

} // namespace stepwise
