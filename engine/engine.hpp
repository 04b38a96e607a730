#pragma once

#include <memory>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <caf/actor.hpp>
#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "engine/admission.hpp"
#include "engine/config.hpp"
#include "engine/event.hpp"
#include "engine/metrics.hpp"
#include "engine/operation.hpp"
#include "engine/registry.hpp"
#include "engine/requests.hpp"
#include "engine/schedule_requests.hpp"
#include "engine/store.hpp"
#include "engine/task_requests.hpp"

namespace stepwise {

/// Sets the CAF options stepwise runs best with; call it on the host's
/// config before creating the actor system. It picks CAF's work-sharing
/// scheduler: 0.17's work stealing polls and steals so eagerly that, on a
/// small machine under load, it burns more CPU than the engine itself
/// (measured: about 4x the CPU per operation on 2 cores). It sizes the
/// scheduler to one thread per core (at least two) where CAF starts at
/// least four: set `scheduler.max-threads` after it if the host's own
/// actors block. Call it before `cfg.parse`, so that the command line and
/// `caf-application.ini` override it. It also registers the stepwise error
/// category, so that `actor_system::render` names an `errc`.
void tune_actor_system(caf::actor_system_config& cfg);

/// The embedding API: a handle to an engine running inside the host's
/// `caf::actor_system`. Cheap to copy. Each function sends one request to
/// the dispatcher (the actor at the engine's centre, which routes requests
/// to the operations' actors) and waits for its answer (at most
/// `engine_config::request_timeout`); do not call them from inside an
/// actor's handler (send messages to `dispatcher()` there instead).
///
/// Operations returned to callers have secret input values, and the
/// secrets steps kept in the data (`step_context::keep_secret`), replaced
/// by `"***"`.
class engine {
public:
  /// Spawns the engine in `sys` on the store `st` (`cfg.store_uri` is
  /// not read: `open_engine`, storage/open_engine.hpp, opens the store it
  /// names and calls this) and resumes every non-terminal operation. Fails
  /// with context when recovery fails.
  ///
  /// On a store that several processes share (PostgreSQL, see
  /// engine/lease_store.hpp) the engine joins under a fresh owner id and
  /// resumes only orphaned operations (those of no live process); it then
  /// takes over the operations of processes that stop renewing their
  /// lease (`engine_config::lease_ttl`). Operations started through this
  /// engine run in this process: spreading clients over processes spreads
  /// the work.
  [[nodiscard]] static caf::expected<engine> launch(caf::actor_system& sys, engine_config cfg,
                                                    registry workflows, store_ptr st);

  /// Starts an operation (durably created on return).
  [[nodiscard]] caf::expected<start_result> start(const start_request& req);

  /// Starts an operation without waiting: calls `done` once, from one of
  /// the engine's CAF threads, when the operation is durably created or the
  /// start failed (`request_timeout` included). `done` must not block; the
  /// calling thread goes on at once. Safe to call from inside an actor.
  void start(const start_request& req, std::function<void(caf::expected<start_result>)> done);

  /// Returns the operation.
  [[nodiscard]] caf::expected<operation> get(const std::string& id);

  // `by`, in the requests below: who asks (see `event::by`); the events
  // the request writes carry it.

  /// Cancels a pending, running, waiting or paused operation.
  [[nodiscard]] caf::expected<operation> cancel(const std::string& id, const std::string& by = {});

  /// Resumes a failed operation at its failed step, or runs the incomplete
  /// best-effort steps of a succeeded one again.
  [[nodiscard]] caf::expected<operation> retry(const std::string& id, const std::string& by = {});

  /// Retries as above, and also from a paused or canceled operation, with
  /// `opts` applied first: its input patched, and/or the steps from
  /// `from_step` on sent back to pending (a succeeded operation too). The
  /// operation keeps its workflow version. Fails with `invalid_argument`
  /// naming the field that is wrong, `invalid_state` naming the state.
  [[nodiscard]] caf::expected<operation> retry(const std::string& id, retry_options opts);

  /// Records the failed, paused or waiting step `step` as skipped (with
  /// `reason`, 1 to `max_skip_reason` bytes) and goes on with the next one.
  [[nodiscard]] caf::expected<operation> skip(const std::string& id, std::string step,
                                              std::string reason);

  /// Sends `req` (any command, with what it carries).
  [[nodiscard]] caf::expected<operation> apply(const std::string& id, command_request req);

  /// Pauses the operation at its next step boundary: at once when no
  /// attempt runs, else when the running attempt (asked to stop) ends.
  [[nodiscard]] caf::expected<operation> pause(const std::string& id, const std::string& by = {});

  /// Continues a paused operation at the step where it stopped, with a
  /// fresh retry budget.
  [[nodiscard]] caf::expected<operation> resume(const std::string& id, const std::string& by = {});

  /// Sends signal `sig` to the operation: stored in the same write as its
  /// `signal_received` event, whether or not the operation waits for it
  /// now (a wait step takes it when it gets there). A repeated
  /// `signal_id` writes nothing (`duplicate`). Fails with `not_found`, or
  /// `invalid_state` when the operation has ended.
  [[nodiscard]] caf::expected<signal_result> signal(const std::string& id, signal_request sig);

  /// Returns a page of operations, newest first.
  [[nodiscard]] caf::expected<operation_page> list(const list_filter& f);

  /// Returns how many children operation `id` has in each state
  /// (`{"total": N, "succeeded": ...}`, engine/children.hpp), from the
  /// list of its children, page by page.
  [[nodiscard]] caf::expected<boost::json::object> count_children(const std::string& id);

  /// Returns up to `limit` events with `seq > after`, oldest first.
  [[nodiscard]] caf::expected<std::vector<event>> events(int64_t after, size_t limit);

  /// Returns up to `limit` events of operation `id` with `seq > after`,
  /// oldest first, from the store's index by operation (complete however
  /// many other operations wrote events between them). Reads the store on
  /// the calling thread, like `event_horizon`: never call it on a CAF
  /// scheduler thread.
  [[nodiscard]] caf::expected<std::vector<event>> operation_events(const std::string& id,
                                                                   int64_t after,
                                                                   size_t limit) const;

  /// Returns the store's retention horizon (engine/retention_store.hpp):
  /// the highest event seq retention removed, 0 when none was or the store
  /// has no retention. Reads the store on the calling thread (it may block:
  /// never call it on a CAF scheduler thread), so that a reader that read
  /// a page of `events` first sees every removal that page missed.
  [[nodiscard]] caf::expected<int64_t> event_horizon() const;

  /// Returns the bytes the store takes on disk (`retention_store::
  /// size_bytes`; 0 for a store without retention). Reads the store on the
  /// calling thread, like `event_horizon`.
  [[nodiscard]] caf::expected<int64_t> store_bytes() const;

  /// Waits until the operation is terminal or `timeout` passes (then
  /// returns its current state).
  [[nodiscard]] caf::expected<operation> wait(const std::string& id, duration timeout);

  // -- schedules (each fire starts one operation; see engine/schedule.hpp) --

  /// Writes a new schedule. The same definition again answers the stored
  /// one (`created` false); another definition under the same id fails
  /// with `idempotency_conflict`; a bad one with `invalid_argument` naming
  /// the field, an unknown workflow or version with `unknown_workflow`.
  [[nodiscard]] caf::expected<schedule_result> create_schedule(const schedule& s,
                                                               const std::string& by = {});

  /// Replaces the definition of schedule `s.id` (from its next fire on).
  [[nodiscard]] caf::expected<schedule_view> replace_schedule(const schedule& s,
                                                              const std::string& by = {});

  [[nodiscard]] caf::expected<schedule_view> get_schedule(const std::string& id);

  /// Returns every schedule, by id.
  [[nodiscard]] caf::expected<std::vector<schedule_view>> list_schedules();

  /// Deletes the schedule (the operations it started stay); returns it as
  /// it was.
  [[nodiscard]] caf::expected<schedule_view> delete_schedule(const std::string& id,
                                                             const std::string& by = {});

  /// Pauses (`paused`) or resumes the schedule; a resume does not catch up
  /// the fires missed while paused.
  [[nodiscard]] caf::expected<schedule_view> pause_schedule(const std::string& id, bool paused,
                                                            const std::string& by = {});

  /// Fires the schedule now, once, whatever its overlap policy says.
  [[nodiscard]] caf::expected<start_result> trigger_schedule(const std::string& id,
                                                             const std::string& by = {});

  /// Returns the schedule keeper, for requests by message
  /// (engine/schedule_requests.hpp).
  schedules_actor schedules() const;

  // -- workflows defined as data (engine/workflow_json.hpp) -----------------

  /// What `define_workflow` did.
  struct defined_workflow {
    workflow_ptr wf;
    /// False when the newest version already had this definition.
    bool created = false;
  };

  /// Stores `def` as the next version of workflow `name` (the same
  /// definition again: the newest version, `created` false) and makes it
  /// startable; operations keep the version they started on. Fails with
  /// `invalid_argument` naming the field of a bad definition, or
  /// `invalid_state` for a workflow built into the server. Blocks on the
  /// store: never call it on a CAF scheduler thread.
  [[nodiscard]] caf::expected<defined_workflow> define_workflow(const std::string& name,
                                                                const boost::json::object& def);
  /// Deletes every version of workflow `name` defined as data; refused
  /// (`invalid_state`) while an operation of it has not ended, and for a
  /// built-in workflow; `not_found` when none is stored. Blocks on the
  /// store.
  [[nodiscard]] caf::expected<int32_t> delete_workflow(const std::string& name);
  /// Reads the workflows defined as data again (those another server
  /// sharing the store defined); returns how many versions were new.
  /// Blocks on the store.
  [[nodiscard]] caf::expected<size_t> reload_workflows();

  // -- task steps, carried out by workers (engine/task_requests.hpp) --------

  /// Hands up to `p.max` ready tasks of queue `p.queue` to worker
  /// `p.worker`, oldest first; when none is ready, waits up to `p.wait`
  /// for one (an empty list after that). Calls `done` once, from one of
  /// the engine's threads; the calling thread goes on at once and no
  /// thread waits meanwhile.
  void poll_tasks(const task_poll& p,
                  std::function<void(caf::expected<std::vector<task_lease>>)> done);
  /// The same, waiting for the answer.
  [[nodiscard]] caf::expected<std::vector<task_lease>> poll_tasks(const task_poll& p);
  /// Tells the task's attempt that its worker still works on it. Fails with
  /// `stale_task` when the attempt is no longer current.
  [[nodiscard]] caf::expected<task_beat_result> heartbeat_task(const task_beat& b);
  /// The same, calling `done` once from one of the engine's threads; no
  /// thread waits meanwhile.
  void heartbeat_task(const task_beat& b,
                      std::function<void(caf::expected<task_beat_result>)> done);
  /// Ends the task's attempt with the worker's outcome, under the step's
  /// retry policy. Fails with `stale_task` when the attempt is no longer
  /// current (nothing changes then).
  [[nodiscard]] caf::expected<void> answer_task(const task_answer& a);
  /// The same, calling `done` once from one of the engine's threads.
  void answer_task(const task_answer& a, std::function<void(caf::expected<void>)> done);
  /// Returns the task queues this engine holds tasks, polls or workers of.
  [[nodiscard]] caf::expected<std::vector<task_queue_view>> task_queues();
  /// Returns the task broker, for requests by message.
  tasks_actor tasks() const;

  /// Sends every event committed from now on to `listener` as
  /// `event_batch` messages, until `listener` terminates. "Now" is when
  /// the engine takes the message: for every event from the launch on,
  /// recovery's included, name the listener in `engine_config::listeners`.
  void subscribe(const event_listener& listener);

  /// On a store shared by several processes (`shares_store`): calls
  /// `fn(first, last)`, on a thread of the engine's, each time a commit of
  /// any of them, this one included, wrote the events `first` to `last`.
  /// A wake-up from the store's notifications, which may come late or
  /// never (a dropped connection): a caller that must see every event
  /// also reads `events` on its own now and then. Replaces the `fn` set
  /// before; an empty one stops the calls.
  void on_shared_events(std::function<void(int64_t first, int64_t last)> fn);

  /// Returns whether other processes may write to the store (it keeps
  /// leases): events then come from them too.
  bool shares_store() const;

  /// Stops taking new work, writes what is in flight and stops the engine.
  void shutdown();

  /// Begins a drain before `shutdown`: new operations are refused
  /// (`errc::shutting_down`, starts by schedules and steps included) and no
  /// new attempt begins; running attempts go on, and their results are
  /// written. Idempotent, cannot be undone.
  void drain();

  /// Returns whether `drain` was called.
  bool draining() const;

  /// Returns how many attempts still run (or have their result not yet
  /// queued for writing); 0 after `drain`: `shutdown` loses no result.
  int64_t attempts_running() const;

  /// Returns the registered workflows.
  const registry& workflows() const;

  /// Returns the dispatcher, for requests by message (engine/requests.hpp).
  const dispatcher_actor& dispatcher() const {
    return dispatcher_;
  }

  /// Returns the engine's clock.
  stepwise::clock& clock() const;

  /// Returns the engine's live counters (for the metrics endpoint).
  const stepwise::metrics& stats() const;

  /// Returns, per workflow that takes part in admission, the operations
  /// queued and in progress (all processes of the store), as of the last
  /// admission round.
  std::map<std::string, admission_counts> admission() const;

  /// Returns the backend name of the store (`sqlite`, `postgresql`).
  std::string store_backend() const;

  /// Returns this process's owner id in a store shared by several
  /// processes (it changes when the lease was lost and joined again), or
  /// an empty string for a store that serves one process.
  std::string owner() const;

  /// Returns the processes sharing the store (live leases), with where
  /// each is reached, its build and how many operations it drives; on a
  /// store of one process, this one.
  [[nodiscard]] caf::expected<cluster_view> cluster();

  /// Returns whether recovery is done, the store answered recently and (on
  /// a shared store) the lease surely holds.
  bool ready() const;

  /// Returns how many checkpoints wait to be written to the store.
  size_t commit_backlog() const;

  /// Returns why the engine is not ready (e.g. the store's last error), or
  /// an empty string when it is.
  std::string not_ready_reason() const;

  engine() = default;

private:
  struct shared;

  /// Sends a request to the dispatcher and waits at most `timeout` for the
  /// answer; an empty handle answers with an error.
  template <class T, class... Ts>
  caf::expected<T> ask(duration timeout, Ts&&... xs) const;

  /// The same, to the schedule keeper.
  template <class T, class... Ts>
  caf::expected<T> ask_schedules(Ts&&... xs) const;
  /// The same, to the task broker, waiting at most `extra` longer.
  template <class T, class... Ts>
  caf::expected<T> ask_tasks(duration extra, Ts&&... xs) const;
  /// The same, calling `done` with the answer instead of waiting.
  template <class T, class... Ts>
  void tell_tasks(std::function<void(caf::expected<T>)> done, Ts&&... xs) const;

  /// Returns `engine_config::request_timeout`.
  duration request_timeout() const;

  engine(dispatcher_actor a, std::shared_ptr<shared> s)
    : dispatcher_(std::move(a)), shared_(std::move(s)) {
    // nop
  }

  dispatcher_actor dispatcher_;
  std::shared_ptr<shared> shared_;
};

} // namespace stepwise
