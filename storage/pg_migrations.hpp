#pragma once

#include <caf/error.hpp>

namespace stepwise {

class pg_connection;

/// Returns the schema version this build creates (the newest migration).
int pg_schema_version();

/// Creates or upgrades the tables in the connection's current schema (the
/// first schema of its `search_path`) to `pg_schema_version()`.
///
/// Each migration runs in its own transaction and is recorded in
/// `schema_migrations`. A session advisory lock, keyed by the schema
/// name, is held throughout, so processes starting at once migrate one
/// after the other and the later ones find nothing to do. Fails, writing
/// nothing, when the database holds a newer schema than this build knows
/// (an older process never runs on a schema it does not know), and when
/// it would migrate while another process holds a live lease (processes
/// of the older version must stop first: their statements assume the old
/// schema). `target` (tests only) stops after that migration.
[[nodiscard]] caf::error pg_migrate(pg_connection& conn, int target = pg_schema_version());

/// Inside the caller's transaction: waits for a migration under way (the
/// same advisory lock, shared), then fails when the schema is newer than
/// this build knows. A process joins the leases this way, so that it never
/// runs on a schema migrated between its open and its join.
[[nodiscard]] caf::error pg_check_version(pg_connection& conn);

} // namespace stepwise
