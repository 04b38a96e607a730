#include "storage/sqlite_read_pool.hpp"

namespace stepwise {

sqlite_read_pool::sqlite_read_pool(std::string path, std::chrono::milliseconds busy,
                                   size_t max_idle)
  : path_(std::move(path)), busy_(busy), max_idle_(max_idle) {
  // nop
}

caf::expected<sqlite_read_pool::lease> sqlite_read_pool::acquire() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (!idle_.empty()) {
      auto conn = std::move(idle_.back());
      idle_.pop_back();
      return lease{this, std::move(conn)};
    }
  }
  // Opening takes a while: do it outside the lock.
  auto conn = sqlite_connection::open(path_, SQLITE_OPEN_READONLY, busy_);
  if (!conn)
    return std::move(conn.error());
  return lease{this, std::move(*conn)};
}

void sqlite_read_pool::give_back(std::unique_ptr<sqlite_connection> conn) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (idle_.size() < max_idle_)
    idle_.push_back(std::move(conn));
  // A surplus connection (after a burst of readers) closes when `conn`, a
  // parameter, is destroyed: after the lock is released.
}

} // namespace stepwise
