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
/// after the other and the later ones find nothing to do. Fails when the
/// database holds a newer schema than this build knows.
[[nodiscard]] caf::error pg_migrate(pg_connection& conn);

} // namespace stepwise
