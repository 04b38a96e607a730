#pragma once

#include <memory>
#include <optional>
#include <string>

#include "storage/pg_store.hpp"

namespace stepwise::test {

/// Returns the URI of the test database (`STEPWISE_TEST_PG_URI`), if set.
std::optional<std::string> pg_test_uri();

/// A schema of its own in the test database, so that each test starts
/// from an empty store while all tests share one throwaway server. Dropped
/// with everything in it on destruction.
///
/// Stores opened through `uri()` put their tables in the schema (via the
/// connection's `search_path`) and name their connections after it
/// (`application_name`), so a test can cut exactly its own connections.
class pg_test_schema {
public:
  /// Creates a new schema in the database at `base_uri` (a URI without an
  /// `options` parameter).
  explicit pg_test_schema(const std::string& base_uri);

  pg_test_schema(const pg_test_schema&) = delete;
  pg_test_schema& operator=(const pg_test_schema&) = delete;

  ~pg_test_schema();

  /// Returns the schema name.
  const std::string& name() const noexcept {
    return name_;
  }

  /// Returns a URI whose connections work in the schema.
  const std::string& uri() const noexcept {
    return uri_;
  }

  /// Opens a store on the schema (another "process" on each call).
  std::shared_ptr<pg_store> open() const;

  /// Runs `sql` on an admin connection (outside the schema's stores);
  /// returns the first column of the first row, if any.
  std::string admin(const std::string& sql) const;

  /// Ends every server session of the schema's stores, as a server
  /// restart would.
  void cut_connections() const;

private:
  std::string base_uri_;
  std::string name_;
  std::string uri_;
};

/// Returns a fresh schema, or null (after a warning) when no test
/// database is configured: PostgreSQL-only tests then pass vacuously, as
/// `tests/run-all` always sets one.
std::unique_ptr<pg_test_schema> pg_schema_or_skip();

/// Returns a store on a fresh schema that drops the schema when the last
/// reference goes (the factory of the shared store suite).
store_ptr make_fresh_pg_store(const std::string& base_uri);

} // namespace stepwise::test
