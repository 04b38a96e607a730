#include "storage/sqlite_backup.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/errc.hpp"
#include "storage/sqlite_connection.hpp"

namespace stepwise {

namespace {

// Names here are prefixed: the storage library is a unity build, and its
// files share their anonymous namespaces.

caf::error backup_os_failure(const std::string& what) {
  return make_error(errc::store_failure, what + " failed: " + std::strerror(errno));
}

/// Removes the partial copy on every way out but success.
struct backup_partial_file {
  std::string path;
  bool keep = false;
  ~backup_partial_file() {
    if (!keep)
      ::unlink(path.c_str());
  }
};

caf::expected<int64_t> backup_count(sqlite_connection& conn, const std::string& sql) {
  auto stmt = conn.prepare(sql);
  if (!stmt)
    return std::move(stmt.error());
  statement_reset guard{**stmt};
  if ((*stmt)->step() != SQLITE_ROW)
    return conn.failure(sql);
  return (*stmt)->int64(0);
}

/// Flushes `path` (a file or a directory) to disk.
caf::error backup_fsync(const std::string& path, int flags) {
  auto fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0)
    return backup_os_failure("opening " + path + " to flush it");
  auto rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0)
    return backup_os_failure("flushing " + path);
  return caf::error{};
}

std::string backup_dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// Copies every page of `src` (in its open read transaction) into `dest`,
/// `per_step` pages a call.
caf::error backup_pages(sqlite_connection& src, sqlite_connection& dest,
                        const sqlite_backup_options& opts, sqlite_backup_report& rep) {
  auto* b = sqlite3_backup_init(dest.handle(), "main", src.handle(), "main");
  if (b == nullptr)
    return dest.failure("starting the backup");
  int rc = SQLITE_OK;
  // No pause between steps: the source's writers do not wait for this
  // reader (WAL), so there is no lock to hand back.
  while (rc == SQLITE_OK) {
    rc = sqlite3_backup_step(b, opts.pages_per_step);
    ++rep.steps;
    if (rc == SQLITE_OK && opts.after_step)
      opts.after_step(sqlite3_backup_remaining(b));
  }
  rep.pages = sqlite3_backup_pagecount(b);
  // finish returns the step's error again, if any; the message is dest's
  // or src's, whichever failed.
  auto finished = sqlite3_backup_finish(b);
  if (rc != SQLITE_DONE || finished != SQLITE_OK) {
    auto& failed = sqlite3_errcode(dest.handle()) != SQLITE_OK ? dest : src;
    return failed.failure("copying the pages", rc != SQLITE_DONE ? rc : finished);
  }
  return caf::error{};
}

} // namespace

caf::expected<sqlite_backup_report> backup_sqlite(const std::string& db_path, const std::string& to,
                                                  const sqlite_backup_options& opts) {
  struct stat st {};
  if (::stat(db_path.c_str(), &st) != 0)
    return make_error(errc::invalid_argument,
                      "no database at " + db_path + ": " + std::strerror(errno));
  struct stat dest {};
  if (::stat(to.c_str(), &dest) == 0) {
    if (dest.st_dev == st.st_dev && dest.st_ino == st.st_ino)
      return make_error(errc::invalid_argument, to + " is the database itself");
    if (!opts.force)
      return make_error(errc::invalid_argument, to + " exists: pass --force to replace it");
  }
  if (opts.pages_per_step < 1)
    return make_error(errc::invalid_argument, "pages per step must be at least 1");
  // Read-write without CREATE: a mistyped path is an error, not a new
  // empty database; a read-only connection could not open a WAL database
  // whose -shm no server made yet.
  auto src = sqlite_connection::open(db_path, SQLITE_OPEN_READWRITE, std::chrono::seconds(5));
  if (!src)
    return std::move(src.error());
  // One read transaction over the whole copy. SQLite's backup restarts
  // from the first page whenever another connection writes to the source
  // between two steps, so under a steady load of commits a copy in steps
  // might never end; a transaction held across the steps sees one snapshot,
  // which never changes, so the copy is consistent and ends. In WAL mode a
  // reader does not block the writer: the server keeps committing, and
  // only its checkpoints cannot pass this snapshot (the WAL grows until
  // the copy ends).
  if (auto err = (*src)->exec("BEGIN", "beginning a read transaction on " + db_path))
    return err;
  sqlite_backup_report rep;
  auto tables = backup_count(
    **src, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'operations'");
  if (!tables && sqlite3_errcode((*src)->handle()) == SQLITE_NOTADB)
    return make_error(errc::invalid_argument,
                      db_path + " is not a SQLite database: " + message_of(tables.error()));
  if (!tables)
    return std::move(tables.error());
  if (*tables == 0)
    return make_error(errc::invalid_argument,
                      db_path + " is not a stepwise database (it has no operations table)");
  // Counted in the snapshot that is copied: what the copy holds.
  auto ops = backup_count(**src, "SELECT count(*) FROM operations");
  auto events = ops ? backup_count(**src, "SELECT count(*) FROM events") : ops;
  if (!events)
    return std::move(events.error());
  rep.operations = *ops;
  rep.events = *events;
  backup_partial_file partial{to + ".partial"};
  if (::unlink(partial.path.c_str()) != 0 && errno != ENOENT)
    return backup_os_failure("removing the old " + partial.path);
  {
    auto dest = sqlite_connection::open(partial.path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                        std::chrono::seconds(5));
    if (!dest)
      return std::move(dest.error());
    if (auto err = backup_pages(**src, **dest, opts, rep))
      return err;
  }
  if (auto err = (*src)->exec("COMMIT", "ending the read transaction on " + db_path))
    return err;
  // SQLite synced the copy as it committed it; this sync makes the file
  // durable whatever the destination connection's settings were.
  if (auto err = backup_fsync(partial.path, O_RDONLY))
    return err;
  if (::stat(partial.path.c_str(), &st) != 0)
    return backup_os_failure("reading the size of " + partial.path);
  rep.bytes = st.st_size;
  if (::rename(partial.path.c_str(), to.c_str()) != 0)
    return backup_os_failure("renaming " + partial.path + " to " + to);
  partial.keep = true;
  if (auto err = backup_fsync(backup_dir_of(to), O_RDONLY | O_DIRECTORY))
    return err;
  return rep;
}

} // namespace stepwise
