#pragma once

#include <cstdint>
#include <string>

#include <caf/error.hpp>

#include "storage/sqlite_connection.hpp"

namespace stepwise {

/// Returns the schema version this binary creates and understands: the
/// number of the last migration.
int64_t sqlite_schema_version();

/// Brings the database of `conn` to `sqlite_schema_version()` by applying
/// every migration it lacks, all in one transaction (either all apply or
/// none). A database with a newer version than this binary knows is an
/// error: an older binary must not write a schema it does not understand.
/// `path` names the database in errors.
[[nodiscard]] caf::error migrate(sqlite_connection& conn, const std::string& path);

} // namespace stepwise
