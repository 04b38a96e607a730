#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <caf/error.hpp>
#include <caf/expected.hpp>
#include <libpq-fe.h>

#include "storage/pg_params.hpp"

namespace stepwise {

/// Owns one `PGresult` (cleared on destruction).
class pg_result {
public:
  pg_result() = default;

  explicit pg_result(PGresult* r) noexcept : r_(r) {
    // nop
  }

  PGresult* get() const noexcept {
    return r_.get();
  }

  explicit operator bool() const noexcept {
    return r_ != nullptr;
  }

  ExecStatusType status() const noexcept {
    return PQresultStatus(r_.get());
  }

  int rows() const noexcept {
    return PQntuples(r_.get());
  }

  bool is_null(int row, int col) const noexcept {
    return PQgetisnull(r_.get(), row, col) != 0;
  }

  std::string_view text(int row, int col) const noexcept {
    return {PQgetvalue(r_.get(), row, col), static_cast<size_t>(PQgetlength(r_.get(), row, col))};
  }

  /// Returns the column as an integer (0 for NULL or garbage).
  int64_t int64(int row, int col) const noexcept;

  /// Returns the server's error message (empty when none).
  std::string error_message() const;

private:
  struct deleter {
    void operator()(PGresult* r) const noexcept {
      PQclear(r);
    }
  };
  std::unique_ptr<PGresult, deleter> r_;
};

/// Owns one libpq connection. Every call blocks: use it on a store thread,
/// never on a CAF scheduler thread.
///
/// Failures become `errc::store_failure` errors whose context names the
/// call. After a failure, `broken()` tells whether the connection is gone
/// (server restart, network): the owner then drops it and reconnects on
/// its next call.
///
/// Not thread-safe: one thread uses it at a time.
class pg_connection {
public:
  /// Connects with `uri` (a `postgresql://` URI or a `key=value` string).
  [[nodiscard]] static caf::expected<std::unique_ptr<pg_connection>> open(const std::string& uri);

  ~pg_connection();

  pg_connection(const pg_connection&) = delete;
  pg_connection& operator=(const pg_connection&) = delete;

  PGconn* get() const noexcept {
    return conn_;
  }

  /// Returns whether the connection is unusable.
  bool broken() const noexcept {
    return poisoned_ || PQstatus(conn_) != CONNECTION_OK;
  }

  /// Marks the connection unusable (its protocol state is unknown).
  void poison() noexcept {
    poisoned_ = true;
  }

  /// Runs `sql` (no parameters; may hold several statements).
  [[nodiscard]] caf::expected<pg_result> exec(const char* sql, std::string_view what);

  /// Runs `sql` with `params` (planned for these values).
  [[nodiscard]] caf::expected<pg_result> exec(const char* sql, pg_params& params,
                                              std::string_view what);

  /// Runs the prepared statement `name` with `params`.
  [[nodiscard]] caf::expected<pg_result> exec_prepared(const char* name, pg_params& params,
                                                       std::string_view what);

  /// Prepares `sql` as `name` on this connection.
  [[nodiscard]] caf::error prepare(const char* name, const char* sql);

  /// Returns a store failure for `what`, with libpq's message.
  caf::error fail(std::string_view what) const;

  /// Returns a store failure for `what`, with the message of `r`.
  caf::error fail(std::string_view what, const pg_result& r) const;

private:
  explicit pg_connection(PGconn* conn) noexcept : conn_(conn) {
    // nop
  }

  caf::expected<pg_result> check(PGresult* r, std::string_view what);

  PGconn* conn_;
  bool poisoned_ = false;
};

} // namespace stepwise
