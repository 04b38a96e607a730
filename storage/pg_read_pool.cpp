#include "storage/pg_read_pool.hpp"

#include "storage/pg_statements.hpp"

namespace stepwise {

pg_read_pool::pg_read_pool(std::string uri, size_t max_open)
  : uri_(std::move(uri)), max_open_(max_open > 0 ? max_open : 1) {
  // nop
}

caf::expected<pg_read_pool::lease> pg_read_pool::acquire() {
  {
    std::unique_lock guard{mtx_};
    returned_.wait(guard, [this] { return !idle_.empty() || open_ < max_open_; });
    if (!idle_.empty()) {
      auto conn = std::move(idle_.back());
      idle_.pop_back();
      return lease{this, std::move(conn), true};
    }
    ++open_;
  }
  // Connect outside the lock: it takes a round trip or more.
  auto conn = pg_connection::open(uri_);
  caf::error err;
  if (!conn)
    err = std::move(conn.error());
  else
    err = pg_prepare_all(**conn);
  if (err) {
    std::lock_guard guard{mtx_};
    --open_;
    returned_.notify_one();
    return err;
  }
  return lease{this, std::move(*conn), false};
}

void pg_read_pool::give_back(std::unique_ptr<pg_connection> conn) {
  std::vector<std::unique_ptr<pg_connection>> dropped;
  {
    std::lock_guard guard{mtx_};
    if (conn->broken()) {
      dropped.swap(idle_);
      open_ -= 1 + dropped.size();
      dropped.push_back(std::move(conn));
    } else {
      idle_.push_back(std::move(conn));
    }
  }
  returned_.notify_all();
  // `dropped` closes its connections here, outside the lock.
}

} // namespace stepwise
