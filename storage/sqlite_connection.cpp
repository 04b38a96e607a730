#include "storage/sqlite_connection.hpp"

#include "engine/errc.hpp"

namespace stepwise {

caf::expected<std::unique_ptr<sqlite_connection>> sqlite_connection::open(
  const std::string& path, int flags, std::chrono::milliseconds busy) {
  sqlite3* db = nullptr;
  auto rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    // SQLite allocates a handle even on failure, to carry the message.
    std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return make_error(errc::store_failure, "opening " + path + " failed: " + msg);
  }
  std::unique_ptr<sqlite_connection> conn{new sqlite_connection(db)};
  sqlite3_extended_result_codes(db, 1);
  if (sqlite3_busy_timeout(db, static_cast<int>(busy.count())) != SQLITE_OK)
    return conn->failure("setting the busy timeout of " + path);
  return conn;
}

sqlite_connection::~sqlite_connection() {
  // Statements must be finalized before the connection closes.
  cache_.clear();
  sqlite3_close_v2(db_);
}

caf::expected<sqlite_statement*> sqlite_connection::prepare(const std::string& sql) {
  if (auto i = cache_.find(sql); i != cache_.end())
    return i->second.get();
  sqlite3_stmt* handle = nullptr;
  auto rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                               SQLITE_PREPARE_PERSISTENT, &handle, nullptr);
  if (rc != SQLITE_OK)
    return failure("preparing '" + sql + "'");
  auto stmt = std::make_unique<sqlite_statement>(handle);
  auto* ptr = stmt.get();
  cache_.emplace(sql, std::move(stmt));
  return ptr;
}

caf::error sqlite_connection::exec(const char* sql, std::string_view what) {
  char* msg = nullptr;
  auto rc = sqlite3_exec(db_, sql, nullptr, nullptr, &msg);
  if (rc == SQLITE_OK)
    return caf::error{};
  std::string text = msg != nullptr ? msg : sqlite3_errstr(rc);
  sqlite3_free(msg);
  return make_error(errc::store_failure, std::string{what} + " failed: " + text);
}

caf::error sqlite_connection::run(sqlite_statement& stmt, std::string_view what) {
  statement_reset guard{stmt};
  auto rc = stmt.step();
  if (rc != SQLITE_DONE)
    return failure(what, rc);
  return caf::error{};
}

caf::error sqlite_connection::failure(std::string_view what, int rc) const {
  const char* msg = sqlite3_errcode(db_) != SQLITE_OK ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  return make_error(errc::store_failure, std::string{what} + " failed: " + msg);
}

} // namespace stepwise
