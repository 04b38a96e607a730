#pragma once

#include <cstdint>
#include <string>

#include <caf/error.hpp>

#include "storage/sqlite_connection.hpp"

namespace stepwise {

/// Returns the schema version this binary creates and understands: the
/// number of the last migration.
int64_t sqlite_schema_version();

/// Fails when the database of `conn` has a newer schema than this binary
/// knows, naming both versions; only reads. Called before anything that
/// writes (even `journal_mode = WAL` rewrites the file's header), so that
/// a database an older binary refuses stays byte for byte as it was.
[[nodiscard]] caf::error refuse_newer_schema(sqlite_connection& conn, const std::string& path);

/// Brings the database of `conn` to `sqlite_schema_version()` by applying
/// every migration it lacks, all in one transaction (either all apply or
/// none). A database with a newer version than this binary knows is an
/// error: an older binary must not write a schema it does not understand.
/// `path` names the database in errors.
[[nodiscard]] caf::error migrate(sqlite_connection& conn, const std::string& path);

} // namespace stepwise
