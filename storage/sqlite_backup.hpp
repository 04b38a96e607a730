#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <caf/expected.hpp>

namespace stepwise {

/// How `backup_sqlite` copies.
struct sqlite_backup_options {
  /// Pages copied by one `sqlite3_backup_step` (256 pages of 4 KiB: 1 MiB).
  int pages_per_step = 256;
  /// Replace a destination file that exists already.
  bool force = false;
  /// Called after each step with the pages still to copy (progress; tests
  /// write to the source here, between two steps).
  std::function<void(int64_t remaining)> after_step;
};

/// What `backup_sqlite` wrote.
struct sqlite_backup_report {
  /// Pages of the copy and their size in bytes (the copy's file size).
  int64_t pages = 0;
  int64_t bytes = 0;
  /// `sqlite3_backup_step` calls it took.
  int64_t steps = 0;
  /// Operations in the copy (every state), and events.
  int64_t operations = 0;
  int64_t events = 0;
};

/// Copies the stepwise SQLite database at `db_path` to the new file `to`
/// while servers may write to it: the copy is the database as of one
/// instant (one read transaction), written to `to.partial`, flushed to
/// disk and renamed to `to` only when complete. The key file is not the
/// database's business: the caller copies it.
///
/// Errors (`errc::invalid_argument`): no database at `db_path`, a file
/// that is not a stepwise database, `to` exists (without `force`);
/// `errc::store_failure`: SQLite or the file system failed (the message
/// says which call); nothing is left at `to` then.
[[nodiscard]] caf::expected<sqlite_backup_report> backup_sqlite(
  const std::string& db_path, const std::string& to, const sqlite_backup_options& opts = {});

} // namespace stepwise
