#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "storage/sqlite_connection.hpp"

namespace stepwise {

/// Read-only connections for the store's read functions, so that readers
/// on several threads never wait for each other or for the writer (WAL
/// lets readers see the last commit while a write is under way).
///
/// A reader takes an idle connection or, when none is idle, opens a new
/// one: reads never queue behind each other. At most `max_idle`
/// connections are kept for reuse (each caches its prepared statements).
///
/// Thread-safe.
class sqlite_read_pool {
public:
  /// A connection lent to one thread; returned to the pool on destruction.
  class lease {
  public:
    lease(sqlite_read_pool* pool, std::unique_ptr<sqlite_connection> conn)
      : pool_(pool), conn_(std::move(conn)) {
      // nop
    }

    lease(lease&&) noexcept = default;
    lease& operator=(lease&&) = delete;

    ~lease() {
      if (conn_)
        pool_->give_back(std::move(conn_));
    }

    sqlite_connection* operator->() const noexcept {
      return conn_.get();
    }

    sqlite_connection& operator*() const noexcept {
      return *conn_;
    }

  private:
    sqlite_read_pool* pool_;
    std::unique_ptr<sqlite_connection> conn_;
  };

  sqlite_read_pool(std::string path, std::chrono::milliseconds busy, size_t max_idle);

  /// Returns a connection for the calling thread.
  [[nodiscard]] caf::expected<lease> acquire();

private:
  void give_back(std::unique_ptr<sqlite_connection> conn);

  const std::string path_;
  const std::chrono::milliseconds busy_;
  const size_t max_idle_;
  std::mutex mtx_;
  std::vector<std::unique_ptr<sqlite_connection>> idle_;
};

} // namespace stepwise
