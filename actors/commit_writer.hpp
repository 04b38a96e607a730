#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/lease_keeper.hpp"
#include "actors/protocols.hpp"
#include "actors/store_health.hpp"
#include "engine/admission.hpp"
#include "engine/clock.hpp"
#include "engine/log.hpp"
#include "engine/metrics.hpp"
#include "engine/store.hpp"

namespace stepwise {

/// Where the commit writer's news goes.
struct writer_outputs {
  /// Each commit's events, in log order: the event fan-out.
  event_listener events;
  /// Admission rounds, operations claimed, a lost lease: the dispatcher.
  writer_events_receiver engine;
};

/// Group commit: the writer of the store. Checkpoints from many operations
/// that arrive while a commit is in flight are written together in the next
/// transaction; each sender gets a `commit_ack` only when its write is
/// durable. A store with several commit lanes (`store::commit_lanes`) gets
/// a thread per lane, each taking the next batch while the others' wait
/// for the store; the first thread also does the duties below. A failed commit is retried with backoff, never
/// acknowledged as done and never dropped: the senders just wait.
///
/// Committed events go to `out.events` (the event fan-out) as one
/// `event_batch` per transaction, in log order.
///
/// With a `lease_keeper` (a store shared by several processes) the thread
/// also keeps the lease: it claims orphaned operations every claim period,
/// idle or busy, and hands them to the dispatcher as `recovered_ops`. A commit
/// refused because the lease was lost is not retried: every queued
/// checkpoint is answered `stale_revision`, the engine is told
/// (`lease_lost_atom`), and every commit is refused until the dispatcher,
/// having dropped its actors, asks the writer to join again (`rejoin`):
/// then it joins under a new owner id and claims everything the old one
/// had. (Joining at once let actors about to be dropped write under the
/// new owner: operations owned by this process that nothing drove.)
/// After the last commit on `stop`, the lease is left.
///
/// While idle it pings the store every `probe_every`, so that readiness
/// follows a store that went away (or came back) with nothing to write.
class commit_writer {
public:
  struct options {
    /// Most checkpoints written in one transaction.
    size_t max_batch = 8192;
    /// Most checkpoints queued before `refusal` refuses new work; 0: none.
    size_t max_backlog = 0;
    /// Where store faults are logged.
    log_sink log;
    /// How often an idle writer asks the store whether it answers.
    std::chrono::milliseconds probe_every = std::chrono::seconds(1);
    /// Group commit under load: when fewer than `linger_batch` checkpoints
    /// wait but at least four times as many operations are live (so more
    /// are about to come), wait up to this long for the batch to fill
    /// before writing it, but no longer once a quarter of it brought
    /// nothing. Each commit costs its sync and its pages however few
    /// checkpoints it carries. Zero: write at once. A lone operation never
    /// waits for it.
    duration linger{0};
    size_t linger_batch = 64;
    /// False: no thread; whoever owns the writer drives it by hand with
    /// `write_once`, `admit_once` and `claim_once` (the deterministic
    /// simulation). The idle probe needs the thread.
    bool threads = true;
  };

  /// `clk` times everything the writer measures or waits for (its
  /// readings by `monotonic()`, admission by `now()`).
  commit_writer(store_ptr st, writer_outputs out, metrics& m, std::shared_ptr<clock> clk,
                options opts, std::shared_ptr<lease_keeper> keeper = nullptr);

  ~commit_writer();

  commit_writer(const commit_writer&) = delete;
  commit_writer& operator=(const commit_writer&) = delete;

  /// Queues `cp`; `reply_to` receives `commit_ack{tag, status}` once it is
  /// durable. Returns false after `stop`.
  bool submit(checkpoint cp, commit_ack_receiver reply_to, uint64_t tag);

  /// Lets `request_admission` run rounds with `limits`: before the first
  /// request, and again when a workflow defined as data takes part.
  void enable_admission(admission_limits limits);

  /// Asks for an admission round after the commits queued now (several
  /// requests before it runs make one round). Its outcome goes to the
  /// events sink as an `admission_round` (and its events as an
  /// `event_batch`). A failed round is tried again with backoff.
  void request_admission();

  /// Writes what is queued, then stops the thread. Idempotent.
  void stop();

  /// Returns how many checkpoints wait to be written.
  size_t backlog() const;

  // -- driven by hand (`options::threads` false) -------------------------------

  /// One try at writing: the batch whose last try failed, else the next
  /// batch from the queue. Returns false when there was nothing to write.
  bool write_once();

  /// Runs the requested admission round, if one was requested; returns
  /// whether one was.
  bool admit_once();

  /// Returns whether a batch waits to be tried again, or checkpoints to
  /// be written.
  bool has_work() const;

  /// Returns whether `admit_once` would run a round: one was requested,
  /// and no batch waits to be tried again (the thread retries a batch
  /// before anything else, so that events leave in log order).
  bool admission_due() const;

  /// Returns whether a claim of orphans (which renews the lease) is due.
  bool claim_due() const {
    return keeper_
           && (rejoin_wanted_.load()
               || (joined_.load() && (claim_wanted_.load() || keeper_->claim_due())));
  }

  /// Asks for a lease tick now rather than at the end of the period:
  /// another process joined, left or gave operations up. Any thread.
  void claim_soon();

  /// Claims orphans now, as the thread does every `ttl / 3` (joining again
  /// first when the dispatcher asked).
  void claim_once();

  /// After a lost lease, once the dispatcher dropped every actor of it:
  /// join again under a new owner id and claim. Any thread.
  void rejoin();

  /// Returns why the last store call failed, or empty.
  std::string fault() const;

  /// Returns why new work (a new operation) is refused now, or none: the
  /// store fails (`errc::store_failure`, with its reason), or more than
  /// `max_backlog` checkpoints wait, counting `waiting` starts not yet
  /// handed over (`errc::overloaded`). Work under way is never refused:
  /// it waits for the store instead.
  caf::error refusal(size_t waiting = 0) const;

private:
  struct item {
    commit_ack_receiver reply_to;
    uint64_t tag;
  };

  void run();

  /// A thread of a lane after the first: commits, nothing else.
  void run_lane();

  /// Waits (with `guard` held, released while waiting) up to
  /// `options::linger` for a small batch to fill, when operations are live
  /// enough that it will.
  void linger(std::unique_lock<std::mutex>& guard);

  /// Takes the next batch from the queue (at most `max_batch`).
  void take(std::vector<checkpoint>& batch, std::vector<item>& replies);

  // -- lease duties (commit_writer_lease.cpp) ---------------------------------

  /// Claims orphans and hands them to the dispatcher.
  void lease_tick();

  /// The lease of `owner` was ended: answers `fenced` and everything
  /// queued as stale and tells the engine (once: after that, until
  /// `rejoin`, or for a batch of an older owner, only `fenced`).
  void lease_lost(std::vector<item>& fenced, const std::string& owner);

  /// Joins again (retrying while the store fails, on the thread) and
  /// claims.
  void join_again();

  /// Runs the requested admission round; returns false when it failed.
  bool admission_round();

  /// Waits `d` unless stopping; returns false when stopping.
  bool pause(std::chrono::milliseconds d);

  /// Idle: asks the store whether it answers.
  void probe();

  /// Writes `batch` until it is written or cannot be (lease lost); returns
  /// false when stopping with it unwritten.
  bool write(std::vector<checkpoint>& batch, std::vector<item>& replies);

  /// What one try at writing a batch came to.
  enum class try_result : uint8_t { written, failed, fenced };

  /// Tries once to write `batch`, answering its senders when it is written
  /// (or fenced); `began_under`: the lease epoch it was first tried in;
  /// `retry_in` is what a failure's log line announces.
  try_result write_try(std::vector<checkpoint>& batch, std::vector<item>& replies,
                       uint64_t began_under, std::chrono::milliseconds retry_in);

  store_ptr store_;
  writer_outputs out_;
  metrics& metrics_;
  options opts_;
  store_health health_;
  std::shared_ptr<lease_keeper> keeper_;
  std::shared_ptr<clock> clock_;
  /// When the store last answered (a `monotonic()` reading).
  std::atomic<duration> last_answer_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  /// Held while a lost lease is handled.
  std::mutex lease_mtx_;
  /// Whether the lease is held (false from its loss until joined again),
  /// and whether the dispatcher asked to join again.
  std::atomic<bool> joined_{true};
  std::atomic<bool> rejoin_wanted_{false};
  /// A lease tick is wanted before the period ends (`claim_soon`).
  std::atomic<bool> claim_wanted_{false};
  std::vector<checkpoint> queue_;
  std::vector<item> waiting_;
  bool stopping_ = false;
  bool admission_wanted_ = false;
  /// Replaced whole by `enable_admission` (a workflow defined while the
  /// engine runs); a round reads the one current when it begins.
  std::shared_ptr<const admission_limits> limits_ = std::make_shared<const admission_limits>();
  std::thread thread_;
  std::vector<std::thread> lanes_;
  /// Driven by hand: the batch whose last try failed, tried again next.
  std::vector<checkpoint> held_;
  std::vector<item> held_replies_;
  /// The lease epoch `held_` was first tried in.
  uint64_t held_epoch_ = 0;
  /// Lane threads still running (the first thread leaves the lease after
  /// them).
  size_t lanes_running_ = 0;
};

} // namespace stepwise
