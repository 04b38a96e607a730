#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "engine/sink_store.hpp"
#include "engine/store.hpp"
#include "storage/op_row.hpp"
#include "engine/retention_store.hpp"
#include "engine/sealed_rows.hpp"

namespace stepwise {

namespace sqlite_rows {
struct row_buffers;
} // namespace sqlite_rows

class admission_mirror;
class sqlite_connection;
class sqlite_read_pool;
class sqlite_statement;

/// How SQLite makes a commit durable.
enum class sqlite_sync : uint8_t {
  /// Every commit is on disk when `commit` returns (fsync per commit).
  full,
  /// A commit survives a crash of the process but may be lost on power
  /// loss; much faster for small batches.
  normal,
};

/// Options of `sqlite_store::open`.
struct sqlite_options {
  sqlite_sync synchronous = sqlite_sync::full;
  /// How long a statement waits for a lock held by another connection
  /// (another process, or WAL recovery) before it fails.
  std::chrono::milliseconds busy_timeout{5000};
  /// Read connections kept open for reuse.
  size_t idle_readers = 4;
  /// WAL size (4 KiB pages) at which a commit copies the WAL into the
  /// database file. SQLite's default of 1000 made every large batch pay
  /// for a checkpoint; 10000 (about 40 MiB of WAL) cut the CPU per
  /// checkpoint by a third in store_bench.
  int64_t wal_autocheckpoint_pages = 10000;
  /// Page cache of the write connection, in KiB: hot operations' pages
  /// stay in memory between commits.
  int64_t cache_kib = 32768;
  /// Checks every admission round planned from memory against one
  /// planned from a full read of the store (tests): a difference fails
  /// the round.
  bool check_admission = false;
};

/// The embedded store: one SQLite file in WAL mode, created and upgraded by
/// versioned migrations at open.
///
/// Writes go through one connection, one transaction per `commit`, with
/// prepared statements reused across commits. Reads use separate
/// read-only connections from a pool: they see the last commit and never
/// wait for a write under way.
///
/// An update rewrites the mutable fields only: `input`, `created_at`,
/// `idempotency_key` and `request_hash` keep the values of the create.
/// A create whose id or idempotency key is taken reports `duplicate_key`.
///
/// Also the `sink_store` of the outbox: sink cursors live in the same file
/// (`storage/sqlite_sinks.cpp`).
///
/// Threading: `commit` may be called from any thread (calls are
/// serialized); reads from several threads at once, also during a commit.
class sqlite_store : public store,
                     public sink_store,
                     public sealed_rows,
                     public retention_store,
                     public definition_store {
public:
  /// Opens (creating if needed) the database file at `path` and migrates
  /// its schema.
  [[nodiscard]] static caf::expected<std::shared_ptr<sqlite_store>> open(
    const std::string& path, sqlite_options options = {});

  ~sqlite_store() override;

  /// Returns the path of the database file.
  const std::string& path() const noexcept {
    return path_;
  }

  // -- store interface --------------------------------------------------------

  std::string backend() const override;

  sink_store* sinks() override {
    return this;
  }

  sealed_rows* sealed() override {
    return this;
  }

  retention_store* retention() override {
    return this;
  }

  definition_store* definitions() override {
    return this;
  }

  // -- definition_store (storage/sqlite_definitions.cpp) ---------------------------

  caf::expected<std::vector<stored_definition>> load_definitions() override;

  caf::expected<definition_put> put_definition(const std::string& name,
                                               const std::string& body) override;

  caf::expected<int32_t> delete_definition(const std::string& name) override;

  caf::expected<commit_result> commit(const std::vector<checkpoint>& batch) override;

  std::shared_ptr<const prepared_checkpoint> prepare(const checkpoint& cp) const override {
    return encode_checkpoint(cp);
  }

  caf::expected<admission_round> admit(const admission_limits& limits, time_point now) override;

  caf::expected<std::optional<operation>> load(const std::string& id) override;

  caf::expected<std::optional<operation>> find_by_key(const std::string& key) override;

  caf::expected<std::vector<operation>> load_active_page(
    const std::optional<active_position>& after, size_t limit) override;

  caf::expected<operation_page> list(const list_filter& filter) override;

  caf::expected<std::vector<event>> events_after(int64_t after, size_t limit) override;
  caf::expected<std::vector<event>> events_of(const std::string& operation_id, int64_t after,
                                              size_t limit) override;

  caf::expected<int64_t> last_seq() override;

  caf::expected<std::vector<schedule>> load_schedules() override;

  caf::expected<std::optional<schedule>> load_schedule(const std::string& id) override;

  // -- sink_store interface ---------------------------------------------------

  caf::expected<std::vector<routed_event>> routed_events_after(int64_t after,
                                                               size_t limit) override;

  caf::expected<std::optional<int64_t>> acquire_sink(const std::string& name,
                                                     const std::string& holder, duration ttl,
                                                     sink_start start, bool steal) override;

  caf::error update_sink(const std::string& name, const std::string& holder, duration ttl,
                         const sink_progress& p) override;

  caf::error release_sink(const std::string& name, const std::string& holder) override;

  caf::expected<std::vector<sink_record>> sink_records() override;

  // -- sealed_rows interface (sqlite_sealed.cpp) ------------------------------

  caf::expected<std::vector<sealed_row>> sealed_after(const std::string& after,
                                                      size_t limit) override;

  caf::expected<size_t> rewrite_sealed(const std::vector<sealed_row>& rows) override;

  // -- retention_store interface (sqlite_retention.cpp) -----------------------

  caf::expected<purge_result> purge(const purge_request& req) override;

  caf::expected<int64_t> horizon() override;

  caf::expected<int64_t> size_bytes() override;

private:
  /// The prepared statements of the write path, prepared once at open.
  struct write_statements;

  sqlite_store(std::string path, sqlite_sync sync, std::unique_ptr<sqlite_connection> writer,
               std::unique_ptr<write_statements> stmts, std::unique_ptr<sqlite_read_pool> readers);

  /// Runs `fun(writer)` in a transaction of its own on the write
  /// connection, without an fsync (sink writes, see sink_store).
  caf::error light_write(std::string_view what,
                         const std::function<caf::error(sqlite_connection&)>& fun);
  /// Runs `body` in a write transaction (BEGIN IMMEDIATE), committed when
  /// it answers a value and rolled back when it fails or throws.
  template <class T>
  caf::expected<T> in_write_transaction(const std::function<caf::expected<T>()>& body);

  /// Inserts `evs[from..]` in order (inside an open transaction) and sets
  /// their `seq`.
  caf::error insert_events(std::vector<event>& evs, size_t from);

  /// Writes the items of `batch` inside an open transaction.
  caf::expected<commit_result> write_batch(const std::vector<checkpoint>& batch);

  /// Writes a schedule item of a batch (sqlite_schedules.cpp); returns
  /// whether it was written (its revision matched).
  caf::expected<bool> write_schedule(const checkpoint& cp);

  /// Returns the operation selected by `where` (one `?1` parameter).
  caf::expected<std::optional<operation>> load_one(const std::string& where,
                                                   const std::string& arg);

  std::string path_;
  sqlite_sync sync_;
  std::mutex write_mtx_;
  // Destroyed in reverse order: the readers and the write statements go
  // before the write connection, which closes last.
  std::unique_ptr<sqlite_connection> writer_;
  std::unique_ptr<write_statements> stmts_;
  std::unique_ptr<sqlite_read_pool> readers_;
  /// Guarded by `write_mtx_`.
  std::unique_ptr<sqlite_rows::row_buffers> buffers_;
  /// The admission columns, in memory. Guarded by `write_mtx_`.
  std::unique_ptr<admission_mirror> admission_;
  bool check_admission_ = false;
};

} // namespace stepwise
