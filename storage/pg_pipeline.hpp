#pragma once

#include <chrono>
#include <string_view>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "storage/pg_connection.hpp"

namespace stepwise {

/// Sends many statements to the server in one round trip (libpq pipeline
/// mode), then reads their results in order.
///
/// Usage: `send...` each statement, `sync()` once (flushes everything and
/// marks the end of the round trip), then one `result()` per statement
/// sent and `await_sync()`. Errors of a statement skip the following ones
/// until the sync (their results report the abort).
///
/// The connection is put in nonblocking mode while sending: a large batch
/// would otherwise deadlock, the client blocked writing statements while
/// the server is blocked writing results nobody reads yet. Leaves pipeline
/// mode on destruction.
class pg_pipeline {
public:
  explicit pg_pipeline(pg_connection& conn,
                       std::chrono::milliseconds io_timeout = std::chrono::seconds(60));

  ~pg_pipeline();

  pg_pipeline(const pg_pipeline&) = delete;
  pg_pipeline& operator=(const pg_pipeline&) = delete;

  /// Returns the error of entering pipeline mode, if any.
  caf::error start();

  /// Queues `sql` (one statement, extended protocol).
  [[nodiscard]] caf::error send(const char* sql, pg_params& params);

  /// Queues the prepared statement `name`.
  [[nodiscard]] caf::error send_prepared(const char* name, pg_params& params);

  /// Ends the round trip and sends everything queued.
  [[nodiscard]] caf::error sync();

  /// Returns the result of the next statement sent.
  [[nodiscard]] caf::expected<pg_result> result(std::string_view what);

  /// Skips remaining results up to the sync marker.
  [[nodiscard]] caf::error await_sync();

private:
  /// Sends the output buffer, reading input meanwhile.
  caf::error flush();

  pg_connection& conn_;
  std::chrono::milliseconds io_timeout_;
  bool active_ = false;
};

} // namespace stepwise
