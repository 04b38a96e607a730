#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/expected.hpp>

#include "engine/definition_store.hpp"
#include "engine/admission.hpp"
#include "engine/event.hpp"
#include "engine/notices.hpp"
#include "engine/operation.hpp"
#include "engine/schedule.hpp"

namespace stepwise {

class command_store;
class lease_store;
class retention_store;
class sealed_rows;
class sink_store;

/// What a store made of a checkpoint ahead of its commit (`store::prepare`):
/// opaque to all but that store, which tells its own by `maker`.
struct prepared_checkpoint {
  explicit prepared_checkpoint(const void* made_by) : maker(made_by) {
    // nop
  }

  virtual ~prepared_checkpoint() = default;

  /// The store that made it.
  const void* maker;
};

/// One durable write: an operation's new state and the events it caused.
/// Both commit together or not at all.
struct checkpoint {
  enum class kind : uint8_t {
    /// Insert a new operation (fails per item on a taken idempotency key).
    create,
    /// Replace the operation whose revision is `op->revision - 1`. Its
    /// admission columns are left as rounds wrote them, except that an
    /// operation taking part in admission that leaves an end state (a
    /// retry) is queued again.
    update,
    /// Write `sched`: insert it when its revision is 1 (fails per item when
    /// the id is taken), else replace the one whose revision is
    /// `sched->revision - 1`.
    schedule,
    /// Delete the schedule `sched` names, when its stored revision is
    /// `sched->revision - 1`.
    schedule_delete,
  };

  kind what = kind::update;
  /// The operation (create, update), or null.
  std::shared_ptr<const operation> op;
  std::vector<event> events;
  /// Set by `store::prepare` (none: the store does all the work in `commit`).
  std::shared_ptr<const prepared_checkpoint> prepared = nullptr;
  /// A hint: this update moves the operation to another state than the
  /// stored one (false: unknown, or the same state).
  bool state_changes = false;
  /// The schedule (schedule, schedule_delete), or null.
  std::shared_ptr<const stepwise::schedule> sched = nullptr;
  /// A stored command (`command_store`) this update carries out: deleted
  /// with it, in the same transaction (0: none).
  int64_t consumed_command = 0;
};

/// The per-item result of a commit.
enum class write_status : uint8_t {
  ok,
  /// A create whose idempotency key (or a schedule whose id) is taken:
  /// nothing was written for it.
  duplicate_key,
  /// An update whose expected revision is not the stored one (another
  /// writer won, or the operation is gone): nothing was written for it.
  stale_revision,
};

/// What a commit wrote.
struct commit_result {
  /// One status per checkpoint, in order.
  std::vector<write_status> status;
  /// The events written, with their `seq`, in log order.
  std::vector<event> events;
  /// Whether the commit renewed this process's lease (a shared store's
  /// commits on its first lane do).
  bool renewed_lease = true;
};

/// Filters and pages `store::list`.
struct list_filter {
  std::optional<op_state> state;
  std::string workflow;
  /// Only the children of this operation (empty: any).
  std::string parent;
  /// Only the operations this schedule started (empty: any).
  std::string schedule;
  size_t limit = 50;
  /// Opaque position from a previous page's `next_cursor`; empty: first page.
  std::string cursor;
  // The members below have initializers, so that hosts that list the ones
  // above in braces stay warning-free.
  /// Only the operations with every one of these labels (key, value).
  std::vector<std::pair<std::string, std::string>> labels{};
  /// Only the operations created strictly after, strictly before.
  std::optional<time_point> created_after{};
  std::optional<time_point> created_before{};
  /// Only the operation created with this idempotency key (empty: any).
  std::string idempotency_key{};
};

/// Where a page of active operations ended (`store::load_active_page`): the
/// creation time and id of its last operation.
struct active_position {
  time_point created_at;
  std::string id;
};

/// A page of operations, newest first (created time, then id).
struct operation_page {
  std::vector<operation> items;
  /// Empty on the last page.
  std::string next_cursor;
};

/// The storage interface. Every backend (SQLite, PostgreSQL) passes the
/// same test suite.
///
/// Threading: `commit` is called by one writer thread at a time; the
/// read functions may be called from several threads at once. All calls
/// may block: never call them on a CAF scheduler thread.
class store {
public:
  virtual ~store() = default;

  /// Returns the backend name, e.g. `"sqlite"`.
  virtual std::string backend() const = 0;

  // -- what else the store offers (null: nothing of that kind) --------------

  /// Returns the leases of several processes sharing the store
  /// (engine/lease_store.hpp), or null for a store of one process.
  virtual lease_store* leases() {
    return nullptr;
  }

  /// Returns the control requests stored for other processes sharing the
  /// store (engine/command_store.hpp), or null for a store of one process.
  virtual command_store* commands() {
    return nullptr;
  }

  /// Returns a new connection that listens to `channels` (engine/notices.hpp),
  /// or null for a store of one process (nothing to hear).
  virtual std::unique_ptr<notice_listener> listen(std::vector<std::string> channels) {
    (void)channels;
    return nullptr;
  }

  /// Returns the outbox's side of the store: sink cursors and leases, the
  /// events with their workflows (engine/sink_store.hpp), or null.
  virtual sink_store* sinks() {
    return nullptr;
  }

  /// Returns the rows holding sealed secret values, for a key rotation
  /// (engine/sealed_rows.hpp), or null.
  virtual sealed_rows* sealed() {
    return nullptr;
  }

  /// Returns the workflows defined as data (engine/definition_store.hpp),
  /// or null when the store keeps none.
  virtual definition_store* definitions() {
    return nullptr;
  }

  /// Returns the removal of ended operations, for retention and
  /// `stepwise ops purge` (engine/retention_store.hpp), or null.
  virtual retention_store* retention() {
    return nullptr;
  }

  // -- writes -----------------------------------------------------------------

  /// Writes all `batch` items in one transaction, durable on return. An
  /// error means nothing of the batch was written, or, when the store
  /// lost its connection during the commit, that the store does not know
  /// yet: the caller retries the same batch (the writer does), and the
  /// store answers the retry as it answered the first call if that was
  /// written after all.
  [[nodiscard]] virtual caf::expected<commit_result> commit(
    const std::vector<checkpoint>& batch) = 0;

  /// What `commit_then` calls with a written batch's answer.
  using durable_fn = std::function<void(commit_result&)>;

  /// As `commit`, and calls `durable` with the answer once the batch is
  /// written, before returning. Up to `commit_lanes()` calls may run at
  /// once, from as many threads; `durable` is then called in the order of
  /// the events' seqs (never a later commit's before an earlier one's).
  [[nodiscard]] virtual caf::error commit_then(const std::vector<checkpoint>& batch,
                                               const durable_fn& durable) {
    auto res = commit(batch);
    if (!res)
      return std::move(res.error());
    durable(*res);
    return caf::none;
  }

  /// How many `commit_then` calls may run at once (1: one at a time).
  virtual size_t commit_lanes() const {
    return 1;
  }

  /// Does the part of writing `cp` that needs no connection (encoding its
  /// row), for `commit` to use: the engine calls it on the thread that
  /// submits the checkpoint, so that the operations' threads share work
  /// the one writer thread would otherwise do alone. Thread-safe; it never
  /// blocks. Returns none when there is nothing to do ahead.
  [[nodiscard]] virtual std::shared_ptr<const prepared_checkpoint> prepare(
    const checkpoint& cp) const {
    (void)cp;
    return nullptr;
  }

  /// Runs one admission round (`plan_round` over every operation that
  /// takes part in admission and has not ended, in creation order) and
  /// writes it in one transaction: admission columns and `operation_queued`
  /// events (their `seq` set in the answer). Rounds of several processes
  /// sharing the store run one at a time. Called by the writer thread.
  [[nodiscard]] virtual caf::expected<admission_round> admit(const admission_limits& limits,
                                                             time_point now) = 0;

  /// Returns whether the store answers (for readiness while no commit runs;
  /// a store in this process's memory or files always does). Called by the
  /// writer thread.
  [[nodiscard]] virtual caf::error ping() {
    return caf::none;
  }

  // -- reads ------------------------------------------------------------------

  /// Returns the operation, or none.
  [[nodiscard]] virtual caf::expected<std::optional<operation>> load(const std::string& id) = 0;

  /// Returns the operation created with `key`, or none.
  [[nodiscard]] virtual caf::expected<std::optional<operation>> find_by_key(
    const std::string& key) = 0;

  /// Returns up to `limit` operations that are not terminal, oldest first
  /// (created time, then id), after `after` (none: from the first).
  /// Recovery reads them a page at a time, so that a million waiting
  /// operations are never all decoded in memory at once.
  [[nodiscard]] virtual caf::expected<std::vector<operation>> load_active_page(
    const std::optional<active_position>& after, size_t limit) = 0;

  /// Returns every operation that is not terminal, oldest first.
  [[nodiscard]] caf::expected<std::vector<operation>> load_active() {
    return load_active_page(std::nullopt, SIZE_MAX);
  }

  /// Returns a page of operations, newest first.
  [[nodiscard]] virtual caf::expected<operation_page> list(const list_filter& filter) = 0;

  /// Returns up to `limit` events with `seq > after`, oldest first.
  [[nodiscard]] virtual caf::expected<std::vector<event>> events_after(int64_t after,
                                                                       size_t limit) = 0;

  /// Returns up to `limit` events of operation `operation_id` with
  /// `seq > after`, oldest first. The SQL stores read their index by
  /// operation; this fallback scans the whole log.
  [[nodiscard]] virtual caf::expected<std::vector<event>> events_of(const std::string& operation_id,
                                                                    int64_t after, size_t limit);

  /// Returns the highest `seq` written so far (0 when none).
  [[nodiscard]] virtual caf::expected<int64_t> last_seq() = 0;

  /// Returns every schedule, by id.
  [[nodiscard]] virtual caf::expected<std::vector<schedule>> load_schedules() = 0;

  /// Returns the schedule, or none.
  [[nodiscard]] virtual caf::expected<std::optional<schedule>> load_schedule(
    const std::string& id) = 0;
};

using store_ptr = std::shared_ptr<store>;

} // namespace stepwise
