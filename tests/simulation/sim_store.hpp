#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/admission.hpp"
#include "engine/clock.hpp"
#include "engine/command_store.hpp"
#include "engine/lease_store.hpp"
#include "engine/notices.hpp"
#include "engine/store.hpp"
#include "storage/admission_mirror.hpp"
#include "storage/memory_store.hpp"
#include "tests/simulation/sim_log.hpp"

namespace stepwise::sim {

/// How often each kind of store fault happens (per call).
struct store_faults {
  /// A commit fails and writes nothing.
  double commit_fail = 0;
  /// A commit is written but its answer is lost: the writer's retry of the
  /// same batch is told what the first call did (as PostgreSQL's commit
  /// marks tell it).
  double commit_unsure = 0;
  /// A read (load, list, events, recovery page) fails.
  double read_fail = 0;
  /// An admission round fails and writes nothing.
  double admit_fail = 0;
  /// A retention call (purge, size, horizon) fails and removes nothing.
  double purge_fail = 0;
  /// A claim of orphans (which renews the lease) fails.
  double renew_fail = 0;
};

/// The simulation's store: the memory store, with faults a seed picks,
/// and the store's side of the invariants. It sees every checkpoint when
/// it is submitted (`prepare`) and when it is written, keeps every
/// revision each operation had (so an answer can be matched with a state
/// the store held), and checks admission after each round.
///
/// The simulation runs on one thread: nothing here is locked.
class sim_store : public store, public retention_store, public lease_store, public command_store {
public:
  sim_store(sim_log& log, std::mt19937_64& rng, admission_limits limits,
            std::set<std::string> admitted_workflows);

  store_faults faults;

  /// Plans admission rounds as SQLite does (a swarm setting): over the
  /// rows that wait and a summary of those that run, kept by an
  /// `admission_mirror` that every write updates; each round is checked
  /// against the plan of a full read. Otherwise rounds read everything.
  bool mirror_rounds = false;

  /// The process drains (`engine::drain`): from now on, no operation may
  /// be created (its create submitted) until the next process.
  bool drained = false;

  /// The store offers retention (`store::retention`): the engine runs its
  /// retention keeper (a swarm setting).
  bool retains = false;

  /// The store keeps leases (`store::leases`), as PostgreSQL does for the
  /// processes sharing it (a swarm setting). Times are `clock`'s.
  bool leasing = false;

  /// How many processes share the store at once (a swarm setting): with
  /// more than one, a schedule's write may meet another process's.
  size_t processes = 1;

  /// The clock the store's time comes from (the process's, set before it
  /// launches).
  std::shared_ptr<const clock> time;

  /// Another process claims orphans now: it ends every lease that expired
  /// (this process's too, after a stall) and takes their operations, then
  /// dies at once (its lease expires now), so they are orphans again.
  void another_process_claims();

  /// Returns whether a claim ever took operation `id` over, or the owner
  /// check refused a write of it (its process had lost it): what an actor
  /// of a lost lease finished for it may never be written.
  bool was_claimed(const std::string& id) const {
    return claimed_.count(id) > 0;
  }

  /// Returns whether the process that owns `id` in the store lost its
  /// lease (ended or expired): what it finished for `id` may never be
  /// written (its writer drops what was queued under the lost lease).
  bool owner_lost(const std::string& id) const {
    auto i = owner_of_.find(id);
    return i != owner_of_.end() && !lease_live(i->second);
  }

  /// Returns whether the lease of `owner` still holds by the store's time:
  /// joined, not ended, not expired.
  bool lease_live(const std::string& owner) const;

  /// Returns how many commands were stored, and carried out.
  uint64_t commands_stored() const {
    return static_cast<uint64_t>(command_seq_);
  }
  uint64_t commands_carried() const {
    return commands_carried_;
  }

  /// Returns the repairs written: input patches, from_step resets, skips
  /// a client asked for.
  std::array<uint64_t, 3> repairs() const {
    return repairs_;
  }

  /// Returns whether a command to signal operation `id` with `signal_id`
  /// is stored, not yet carried out.
  bool stores_signal(const std::string& id, const std::string& signal_id) const;
  /// Whether signal `signal_id`, stored for the owner of `id`, was refused
  /// because the operation had ended when its owner took it.
  bool refused_while_ended(const std::string& id, const std::string& signal_id) const;

  /// Returns whether a purge removed operation `id`: the only way an
  /// operation the store held may be missing from it.
  bool removed(const std::string& id) const {
    return removed_.count(id) > 0;
  }

  /// Returns how many operations purges removed.
  size_t removals() const {
    return removed_.size();
  }

  /// A process (`process`, empty: the only one) stopped: what it had
  /// submitted and not written is gone with it.
  void restarted(const std::string& process = {});

  /// The process whose actors run now (several share the store): its
  /// lease renews, its commits are checked for its owner id (`owner`;
  /// empty: the one that joined last). `process` names it across the
  /// owner ids it joins with.
  void acting(const std::string& owner, const std::string& process);

  /// Returns the notifications sent since the last call (PostgreSQL's
  /// NOTIFY at commit), each for every process listening.
  std::vector<notice> take_notices();

  /// Returns the fingerprint of revision `rev` of operation `id` as it was
  /// written, or none if the store never held it.
  std::optional<uint64_t> held(const std::string& id, int64_t rev) const;

  /// Returns the operation as stored now, or none.
  std::optional<operation> peek(const std::string& id);

  /// Returns the ids of every operation, in creation order.
  const std::vector<std::string>& ids() const {
    return order_;
  }

  /// Returns whether run of operation `id` is open (created or retried,
  /// and no terminal event since).
  bool run_open(const std::string& id) const;

  /// Returns how many times operation `id` was retried or resumed: each
  /// gives its steps' attempts a fresh count (1 again).
  int64_t budgets(const std::string& id) const;

  /// Checks what must hold once everything has settled: every operation's
  /// last run ended with the terminal event of its stored state.
  /// A client's request goes out as `by` (see `event::by`), about
  /// `about` (`start`, `op ID`, `schedule ID`; empty: anything).
  void note_request(const std::string& by, std::string about) {
    requests_[by] = std::move(about);
  }

  void check_settled();

  // -- store ------------------------------------------------------------------

  std::string backend() const override;
  caf::expected<commit_result> commit(const std::vector<checkpoint>& batch) override;
  std::shared_ptr<const prepared_checkpoint> prepare(const checkpoint& cp) const override;
  caf::expected<admission_round> admit(const admission_limits& limits, time_point now) override;
  caf::expected<std::optional<operation>> load(const std::string& id) override;
  caf::expected<std::optional<operation>> find_by_key(const std::string& key) override;
  caf::expected<std::vector<operation>> load_active_page(
    const std::optional<active_position>& after, size_t limit) override;
  caf::expected<operation_page> list(const list_filter& filter) override;
  caf::expected<std::vector<event>> events_after(int64_t after, size_t limit) override;
  caf::expected<int64_t> last_seq() override;
  caf::expected<std::vector<schedule>> load_schedules() override;
  caf::expected<std::optional<schedule>> load_schedule(const std::string& id) override;
  retention_store* retention() override {
    return retains ? this : nullptr;
  }
  lease_store* leases() override {
    return leasing ? this : nullptr;
  }
  command_store* commands() override {
    return leasing ? this : nullptr;
  }

  // -- command_store (sim_store_commands.cpp) -----------------------------------

  caf::expected<int64_t> put(const stored_command& cmd) override;
  caf::expected<std::vector<stored_command>> for_owner(const std::string& owner,
                                                       size_t limit) override;
  caf::error drop(int64_t seq, command_outcome why) override;

  // -- lease_store (sim_store_leases.cpp) ---------------------------------------

  caf::error join(const std::string& owner, duration ttl) override;
  caf::error renew() override;
  caf::expected<std::vector<operation>> claim_orphans(size_t limit) override;
  caf::expected<std::vector<owner_info>> owners() override;
  caf::error leave() override;
  // Sharing (sim_store_sharing.cpp).
  caf::expected<load_view> publish_load(int64_t held) override;
  caf::expected<load_view> count_load() override;
  caf::expected<std::vector<std::string>> release_operations(
    const std::vector<std::string>& ids) override;
  caf::error ask_for_work() override;

  // -- retention_store (sim_store_retention.cpp) -------------------------------

  caf::expected<purge_result> purge(const purge_request& req) override;
  caf::expected<int64_t> horizon() override;
  caf::expected<int64_t> size_bytes() override;

private:
  /// What tells the items of a batch apart: its operation or schedule.
  /// Names a batch's item: its snapshot's address, which a later batch's
  /// may reuse once this one is freed (a batch abandoned with a lost
  /// lease), so with what it writes.
  static std::string item_of(const checkpoint& cp) {
    auto at = std::to_string(
      reinterpret_cast<uintptr_t>(cp.op ? static_cast<const void*>(cp.op.get()) : cp.sched.get()));
    return cp.op ? at + " " + cp.op->id + "@" + std::to_string(cp.op->revision)
                 : at + " schedule " + cp.sched->id + "@" + std::to_string(cp.sched->revision);
  }

  bool roll(double p);
  /// A written checkpoint carried out its stored command: it must be
  /// stored (never carried out twice), and is deleted.
  void consume(const checkpoint& cp);
  /// `inner_.commit`, with the owner check of a store that keeps leases.
  caf::expected<commit_result> commit_owned(const std::vector<checkpoint>& batch);
  time_point now() const;
  /// Whether this process's lease was ended (its commits are refused).
  bool fenced() const;
  /// Whether an update of `cp`'s operation is refused by the owner check:
  /// another owner holds it and it has not ended.
  bool foreign(const checkpoint& cp);
  /// Ends every expired lease; returns the orphans (no live owner).
  std::vector<operation> end_expired_and_find_orphans(size_t limit);
  /// Makes `owner` the owner of `op`, bumping its revision as a claim
  /// does (a write prepared by the old owner is then stale).
  operation take(const operation& op, const std::string& owner);
  caf::error read_fault(const char* what);
  /// Forgets the commits in flight of `process` (empty: of all).
  void forget_in_flight(const std::string& process);
  /// Sends a notification (on a store that keeps leases).
  void notify(const char* channel, std::string payload);
  /// The load as published (`by_rows`: as the operations say, with mine).
  load_view count(bool by_rows);
  /// The key of an operation's commit in flight from this process.
  std::string in_flight(const std::string& id) const {
    return process_ + "/" + id;
  }
  void record(const checkpoint& cp, write_status status);
  /// Who did what (sim_store_by.cpp): each event of `cp` that a request
  /// caused names it, and only that request's target.
  void check_by(const checkpoint& cp);
  void on_event(const event& e);
  void check_admission(const admission_round& round);
  /// Checks what a purge removed against the store as it was before
  /// (`before`: every stored operation by id).
  void check_purge(const purge_request& req, const purge_result& res,
                   const std::map<std::string, operation>& before);
  /// Checks that no event of a removed operation is stored, and that the
  /// horizon covers them all and never goes back.
  void check_removed_events();
  /// A round planned from `mirror_`, checked against a full read, written.
  admission_round mirrored_round(const admission_limits& limits, time_point now);
  /// A child created: it names a slot of its parent, and no other
  /// operation took that slot.
  void check_child(const operation& op);
  /// The children a parent recorded for each completed step are exactly
  /// those of that step in the store: a step run again made no new ones.
  void check_family(const operation& parent);
  /// A task step's outcome (sim_store_tasks.cpp): at most one per attempt
  /// of a run, and a worker's failure only for the attempt it was for.
  void check_task_event(const event& e);
  /// A task step that succeeded did so by its worker's answer for its last
  /// attempt.
  void check_task_data(const operation& op);
  /// Repairs (sim_store_repair.cpp): within a run, no step before a
  /// retry's `from_step` starts, and no step a client skipped starts
  /// (unless a later `from_step` sent it back to pending).
  void check_repair_event(const event& e);
  /// An operation keeps the workflow version it was created with.
  void check_version(const operation& op);

  sim_log& log_;
  std::mt19937_64& rng_;
  admission_limits limits_;
  std::set<std::string> admitted_workflows_;
  // Mutable: `prepare` (const) reads the stored revision after a claim.
  mutable memory_store inner_;
  /// Per operation: the fingerprint of each revision written.
  std::unordered_map<std::string, std::map<int64_t, uint64_t>> history_;
  std::vector<std::string> order_;
  /// Child slots ("PARENT/STEP/KEY") and the operation in each.
  std::map<std::string, std::string> slots_;
  /// Operations with a checkpoint submitted and not yet written, by
  /// process (`in_flight`).
  mutable std::set<std::string> submitted_;
  /// Per operation: whether its current run is open.
  std::unordered_map<std::string, bool> open_;
  /// The answer of a commit that was written but reported as failed, and
  /// the batch it belongs to.
  struct unsure_commit {
    commit_result res;
    std::vector<std::string> batch;
  };
  /// By process.
  std::map<std::string, unsure_commit> unsure_;
  /// "schedule at fire time" of every schedule_fired event, and the
  /// operations they name.
  std::set<std::string> fires_;
  std::set<std::string> fired_ops_;
  admission_mirror mirror_;
  /// Operations a purge removed, and the highest seq of each one's events.
  std::map<std::string, int64_t> removed_;
  /// Per operation: the highest seq of its events.
  std::unordered_map<std::string, int64_t> top_seq_;
  /// The highest horizon the store reported.
  int64_t horizon_seen_ = 0;
  /// Per operation: its `operation_retried` and `operation_resumed` events.
  std::unordered_map<std::string, int64_t> budgets_;
  /// Per operation, in its current run: the steps a `from_step` allows
  /// to start (absent: any), and the steps a client skipped.
  std::unordered_map<std::string, std::set<std::string>> rerun_only_;
  std::unordered_map<std::string, std::set<std::string>> skipped_;
  /// Per operation: the workflow version it was created with.
  std::unordered_map<std::string, int32_t> versions_;
  std::array<uint64_t, 3> repairs_{};
  /// Task step outcomes stored: "operation/run/step/attempt".
  std::set<std::string> task_outcomes_;
  /// Leases by owner, and this process's owner id.
  struct lease {
    time_point expires;
    time_point started;
    time_point renewed;
    bool ended = false;
  };
  std::map<std::string, lease> leases_;
  std::string me_;
  /// The process acting now (`acting`).
  std::string process_;
  duration ttl_{};
  /// Per operation: its owner, once leases are kept.
  std::unordered_map<std::string, std::string> owner_of_;
  /// Operations a claim took (and bumped) at least once, or whose write
  /// the owner check refused: a write of theirs may be stale.
  std::set<std::string> claimed_;
  uint64_t ghosts_ = 0;
  /// The clients' requests by their `by`, and what each is about:
  /// `start`, `op ID`, `schedule ID`; empty: anything.
  std::map<std::string, std::string> requests_;
  /// Stored commands by seq.
  std::map<int64_t, stored_command> commands_;
  int64_t command_seq_ = 0;
  uint64_t commands_carried_ = 0;
  std::set<std::pair<std::string, std::string>> refused_while_ended_;
  /// The load each process published, and the notifications not yet
  /// taken.
  std::map<std::string, int64_t> held_;
  std::vector<notice> notices_;
};

} // namespace stepwise::sim
