#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "storage/pg_connection.hpp"

namespace stepwise {

/// The connections of the store's read functions: several threads read at
/// once, and never wait for a commit under way on the writer connection.
///
/// A reader takes an idle connection, or opens one while fewer than
/// `max_open` exist, or else waits for one to come back. Connections come
/// with every statement prepared. A connection returned broken is dropped;
/// since a server restart breaks all of them at once, the idle ones are
/// then dropped too, so the next readers reconnect rather than each
/// finding a dead connection.
///
/// Thread-safe.
class pg_read_pool {
public:
  /// A connection lent to one thread; returned to the pool on destruction.
  class lease {
  public:
    lease(pg_read_pool* pool, std::unique_ptr<pg_connection> conn, bool reused)
      : pool_(pool), conn_(std::move(conn)), reused_(reused) {
      // nop
    }

    lease(lease&&) noexcept = default;
    lease& operator=(lease&&) = delete;

    ~lease() {
      if (conn_)
        pool_->give_back(std::move(conn_));
    }

    pg_connection& operator*() const noexcept {
      return *conn_;
    }

    /// Returns whether the connection served an earlier reader (and may
    /// have died since).
    bool reused() const noexcept {
      return reused_;
    }

  private:
    pg_read_pool* pool_;
    std::unique_ptr<pg_connection> conn_;
    bool reused_;
  };

  pg_read_pool(std::string uri, size_t max_open);

  /// Returns a connection for the calling thread.
  [[nodiscard]] caf::expected<lease> acquire();

  /// Runs `f(conn)` on a pooled connection. A failure on a reused
  /// connection that turns out broken is retried once on a fresh one:
  /// reads are idempotent, and this hides a server restart that happened
  /// while the connection sat idle.
  template <class F>
  auto run(F&& f) -> decltype(f(std::declval<pg_connection&>())) {
    for (int attempt = 0;; ++attempt) {
      auto l = acquire();
      if (!l)
        return std::move(l.error());
      auto res = f(**l);
      if (res || attempt > 0 || !l->reused() || !(**l).broken())
        return res;
    }
  }

private:
  void give_back(std::unique_ptr<pg_connection> conn);

  const std::string uri_;
  const size_t max_open_;
  std::mutex mtx_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<pg_connection>> idle_;
  size_t open_ = 0;
};

} // namespace stepwise
