#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include <caf/error.hpp>
#include <caf/expected.hpp>
#include <sqlite3.h>

#include "storage/sqlite_statement.hpp"

namespace stepwise {

/// Owns one SQLite database connection and its prepared statements.
///
/// Statements are prepared once per SQL text and reused, since preparing
/// costs more than running the small statements of the hot path.
///
/// Not thread-safe: one thread uses a connection at a time (opened with
/// `SQLITE_OPEN_NOMUTEX`); the owner serializes access.
class sqlite_connection {
public:
  /// Opens `path` with `flags` (`SQLITE_OPEN_*`; `NOMUTEX` is added) and
  /// sets the busy timeout.
  [[nodiscard]] static caf::expected<std::unique_ptr<sqlite_connection>> open(
    const std::string& path, int flags, std::chrono::milliseconds busy);

  sqlite_connection(const sqlite_connection&) = delete;
  sqlite_connection& operator=(const sqlite_connection&) = delete;

  ~sqlite_connection();

  sqlite3* handle() const noexcept {
    return db_;
  }

  /// Returns the cached statement for `sql`, preparing it on first use.
  /// The pointer stays valid as long as the connection.
  [[nodiscard]] caf::expected<sqlite_statement*> prepare(const std::string& sql);

  /// Runs `sql` (one or more statements, no results); `what` names the
  /// call in the error.
  [[nodiscard]] caf::error exec(const char* sql, std::string_view what);

  /// Runs `stmt` (bound already) to its end and resets it; for statements
  /// that return no rows, e.g. BEGIN.
  [[nodiscard]] caf::error run(sqlite_statement& stmt, std::string_view what);

  /// Returns a `store_failure` error "`what` failed: <SQLite message>";
  /// `rc` names the failure when the connection holds no message (a
  /// binding error, reported by `sqlite_statement::step`).
  caf::error failure(std::string_view what, int rc = SQLITE_ERROR) const;

private:
  explicit sqlite_connection(sqlite3* db) noexcept : db_(db) {
    // nop
  }

  sqlite3* db_;
  std::unordered_map<std::string, std::unique_ptr<sqlite_statement>> cache_;
};

} // namespace stepwise
