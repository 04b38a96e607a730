#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <caf/expected.hpp>

#include "engine/sink_store.hpp"
#include "engine/store.hpp"
#include "storage/op_row.hpp"
#include "engine/command_store.hpp"
#include "engine/lease_store.hpp"
#include "storage/pg_commit.hpp"
#include "engine/retention_store.hpp"
#include "engine/sealed_rows.hpp"

namespace stepwise {

class pg_connection;
class pg_read_pool;

/// Options of `pg_store::open`.
struct pg_options {
  /// Most read connections open at once (readers beyond wait).
  size_t max_readers = 8;
  /// Connections that commit at once (`store::commit_lanes`): while one
  /// transaction waits for the server, the next one's writes run beside
  /// it, on another core.
  size_t commit_lanes = 2;
};

/// The production store: PostgreSQL through libpq, its tables created and
/// upgraded by versioned migrations at open (in the first schema of the
/// connection's `search_path`).
///
/// Writes go through `commit_lanes` connections, one transaction per
/// `commit`, in two pipelined round trips whatever the batch size (see
/// `pg_commit`); the commits of several lanes overlap their writes and
/// number their events one after the other. Reads
/// use a pool of other connections: they run concurrently with each other
/// and with a commit under way, and see the last committed state.
///
/// An update rewrites the mutable fields only: `input`, `created_at`,
/// `idempotency_key` and `request_hash` keep the values of the create. A
/// create whose id or idempotency key is taken reports `duplicate_key`.
///
/// Failures are `errc::store_failure`. A connection that broke (server
/// restart, network) is dropped and the next call reconnects, so the
/// engine's retry of a failed commit goes through once the server is back.
/// A commit whose connection broke while COMMIT was under way may have been
/// written: the next `commit` (the writer retries the same batch) reads its
/// mark back first and answers as the written commit would have, so no
/// event is written twice and no item reads as stale.
///
/// Also the `sink_store` of the outbox (`storage/pg_sinks.cpp`): its calls
/// run on the pooled connections, never delaying a commit.
///
/// Threading: up to `commit_lanes` commits run at once; the `lease_store`
/// functions, admission rounds and pings run alone, on the first lane;
/// reads may run from several threads at once.
class pg_store : public store,
                 public lease_store,
                 public command_store,
                 public sink_store,
                 public sealed_rows,
                 public retention_store,
                 public definition_store {
public:
  /// Connects to `uri` (`postgresql://...`, `postgres://...` or a libpq
  /// `key=value` string) and migrates the schema.
  [[nodiscard]] static caf::expected<std::shared_ptr<pg_store>> open(const std::string& uri,
                                                                     pg_options options = {});

  ~pg_store() override;

  // -- store interface --------------------------------------------------------

  std::string backend() const override;

  lease_store* leases() override {
    return this;
  }

  command_store* commands() override {
    return this;
  }

  std::unique_ptr<notice_listener> listen(std::vector<std::string> channels) override;

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

  // -- definition_store (storage/pg_definitions.cpp) ---------------------------

  caf::expected<std::vector<stored_definition>> load_definitions() override;

  caf::expected<definition_put> put_definition(const std::string& name,
                                               const std::string& body) override;

  caf::expected<int32_t> delete_definition(const std::string& name) override;

  caf::expected<commit_result> commit(const std::vector<checkpoint>& batch) override;

  caf::error commit_then(const std::vector<checkpoint>& batch, const durable_fn& durable) override;

  size_t commit_lanes() const override {
    return lanes_.size();
  }

  std::shared_ptr<const prepared_checkpoint> prepare(const checkpoint& cp) const override {
    return encode_checkpoint(cp);
  }

  caf::expected<admission_round> admit(const admission_limits& limits, time_point now) override;
  caf::error ping() override;

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

  // -- lease_store interface --------------------------------------------------

  caf::error join(const std::string& owner, duration ttl) override;

  caf::error renew() override;

  caf::expected<std::vector<operation>> claim_orphans(size_t limit) override;

  caf::expected<std::vector<owner_info>> owners() override;

  caf::expected<load_view> publish_load(int64_t held) override;

  caf::expected<load_view> count_load() override;

  caf::expected<std::vector<std::string>> release_operations(
    const std::vector<std::string>& ids) override;

  caf::error ask_for_work() override;

  caf::error leave() override;

  void describe(std::string url, std::string version) override;

  caf::expected<std::vector<owner_info>> members() override;

  // -- command_store interface (pg_commands.cpp) ------------------------------

  caf::expected<int64_t> put(const stored_command& cmd) override;

  caf::expected<std::vector<stored_command>> for_owner(const std::string& owner,
                                                       size_t limit) override;

  caf::error drop(int64_t seq, command_outcome why) override;

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

  // -- sealed_rows interface (pg_sealed.cpp) ----------------------------------

  caf::expected<std::vector<sealed_row>> sealed_after(const std::string& after,
                                                      size_t limit) override;

  caf::expected<size_t> rewrite_sealed(const std::vector<sealed_row>& rows) override;

  // -- retention_store interface (pg_retention.cpp) ---------------------------

  caf::expected<purge_result> purge(const purge_request& req) override;

  caf::expected<int64_t> horizon() override;

  caf::expected<int64_t> size_bytes() override;

private:
  /// A connection that commits, with what names its commits.
  struct lane {
    /// A commit holds the lane (guarded by `lanes_mtx_`).
    bool busy = false;
    std::unique_ptr<pg_connection> conn;
    /// Names this lane's commits (`commit_marks`).
    pg_commit_mark mark;
    /// The answer of a commit whose outcome is unknown, until resolved,
    /// and which batch it was (its items' ids and revisions): the lane
    /// waits for that batch's retry, the only one it may answer.
    std::optional<commit_result> unsure;
    std::vector<std::pair<std::string, int64_t>> unsure_batch;
  };

  pg_store(std::string uri, std::unique_ptr<pg_connection> first, size_t lanes,
           std::unique_ptr<pg_read_pool> readers);

  /// Returns the error of a lease call before `join`.
  static caf::error not_joined();

  /// Returns `l`'s connection, connecting when it has none or it broke.
  /// Requires holding `l` (`take_lane`), or `duty_mtx_` alone for the first.
  caf::expected<pg_connection*> connection(lane& l);

  /// Drops `l`'s connection when it broke (the next call reconnects).
  static void drop_if_broken(lane& l);

  /// Takes the lane that waits for the retry of `batch`, else a free lane
  /// that waits for no batch; waits when there is none.
  lane& take_lane(const std::vector<checkpoint>& batch);

  /// Gives `l` back.
  void give_back(lane& l);

  /// Whether a call on the writer connection needs `join` first.
  enum class needs_join : bool { no, yes };

  /// Runs `fun(conn)` on the first lane's connection with no commit under
  /// way, the shape every lease call, admission round and ping shares: the
  /// connection is opened again when it broke before, and dropped when
  /// `fun` broke it. Returns
  /// what `fun` returns, or the error that kept it from running
  /// (`errc::invalid_state` when it needs `join` and this process has not
  /// joined).
  template <class F>
  auto on_writer(needs_join join, F&& fun) -> std::invoke_result_t<F&, pg_connection&>;

  const std::string uri_;
  /// Shared by commits, held alone by everything else that writes.
  std::shared_mutex duty_mtx_;
  std::vector<std::unique_ptr<lane>> lanes_;
  std::mutex lanes_mtx_;
  std::condition_variable lane_freed_;
  /// Held from a commit's numbering of its events until it is answered.
  std::mutex order_mtx_;
  std::unique_ptr<pg_read_pool> readers_;
  /// Set by `join`; fences every commit.
  std::optional<pg_fence> fence_;
  /// What `join` records of this process (`describe`).
  std::string url_;
  std::string version_;
};

template <class F>
auto pg_store::on_writer(needs_join join, F&& fun) -> std::invoke_result_t<F&, pg_connection&> {
  std::unique_lock guard{duty_mtx_};
  if (join == needs_join::yes && !fence_)
    return not_joined();
  auto& first = *lanes_.front();
  auto conn = connection(first);
  if (!conn)
    return std::move(conn.error());
  auto res = fun(**conn);
  drop_if_broken(first);
  return res;
}

} // namespace stepwise
