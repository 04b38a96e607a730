#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "engine/admission.hpp"
#include "engine/command_store.hpp"
#include "engine/commands.hpp"
#include "engine/requests.hpp"
#include "engine/schedule_requests.hpp"
#include "engine/outcome.hpp"
#include "engine/progress.hpp"
#include "engine/retention_store.hpp"
#include "engine/step_context.hpp"
#include "engine/step_result.hpp"
#include "engine/store.hpp"
#include "engine/wait.hpp"

/// The messages between the dispatcher, operation actors, the step
/// workers and the commit writer. All are local-only, so they are
/// whitelisted rather than serializable.

namespace stepwise {

// -- store reads --------------------------------------------------------------

/// Store reads: an operation by id / by idempotency key, raw (not masked).
using load_atom = caf::atom_constant<caf::atom("sw_load")>;
using load_key_atom = caf::atom_constant<caf::atom("sw_loadkey")>;
/// Launch or writer -> dispatcher: non-terminal operations to resume (found at
/// start, or claimed from a process whose lease ended).
using recover_atom = caf::atom_constant<caf::atom("sw_recover")>;
/// Recovery pager -> dispatcher: (page_atom, recovered_ops), the next page
/// of start-up recovery.
using page_atom = caf::atom_constant<caf::atom("sw_page")>;

// -- internal ------------------------------------------------------------------

/// A timer of an operation actor: (timer_atom, generation).
using timer_atom = caf::atom_constant<caf::atom("sw_timer")>;
/// A step attempt overran its timeout: (step_timeout_atom, generation).
using step_timeout_atom = caf::atom_constant<caf::atom("sw_stepto")>;
/// The lease may have expired: check again whether a step may begin
/// (lease_wait_atom, generation).
using lease_wait_atom = caf::atom_constant<caf::atom("sw_lwait")>;
/// The operation's deadline passed.
using deadline_atom = caf::atom_constant<caf::atom("sw_dline")>;
/// The dispatcher's sleeper timer: (wake_atom, generation). From an
/// operation actor that handed its operation off: a message for the
/// operation reached it after the hand-off; wake it (wake_atom, id).
using wake_atom = caf::atom_constant<caf::atom("sw_wake")>;
/// A watched wait has lasted `passivate_after`: passivate now if it still
/// waits (linger_atom, generation, due).
using linger_atom = caf::atom_constant<caf::atom("sw_linger")>;
/// An operation actor to itself: passivate, if it still may once what is
/// ahead of this in its mailbox is handled (passivate_atom, generation).
using passivate_atom = caf::atom_constant<caf::atom("sw_pass")>;
/// Operation actor -> dispatcher, the hand-off: the actor gives its
/// operation up until `due` (passivated_atom, id, due). The answer says
/// that nothing more is on its way to the actor, which then quits.
using passivated_atom = caf::atom_constant<caf::atom("sw_passed")>;
/// Operation actor -> dispatcher: the operation is terminal (id, snapshot).
using finished_atom = caf::atom_constant<caf::atom("sw_done")>;
/// Writer -> dispatcher: this process's lease was ended (another process took
/// its operations over); stop every operation actor.
using lease_lost_atom = caf::atom_constant<caf::atom("sw_fenced")>;
/// The dispatcher's housekeeping tick (real time, not the engine's clock).
using tidy_atom = caf::atom_constant<caf::atom("sw_tidy")>;
/// A timed wait's deadline, to the dispatcher: (wait_due_atom, id, tag).
using wait_due_atom = caf::atom_constant<caf::atom("sw_waitdue")>;
/// To an operation actor: an admission round admitted its operation, as of
/// the revision it read: (admitted_atom, revision).
using admitted_atom = caf::atom_constant<caf::atom("sw_admit")>;
/// To an operation actor from itself, after it refused a request for an
/// ended operation: end now if nothing else is left to do. (Not at once:
/// other requests may be on their way through the same handler loop.)
using settle_atom = caf::atom_constant<caf::atom("sw_settle")>;
/// The dispatcher's periodic admission round.
using admission_poll_atom = caf::atom_constant<caf::atom("sw_apoll")>;

/// An attempt's result -> its operation actor (from a worker, an
/// asynchronous step's completion or a step actor's reply). A result whose
/// generation is not the actor's current one belongs to an abandoned
/// attempt and is dropped.
struct step_done {
  uint64_t generation = 0;
  int32_t attempt = 0;
  std::shared_ptr<step_result> result;
};

/// A wait step's task, described on a worker for the step's watcher
/// (`wait_spec::task`): the description, or why there is none.
struct watch_ready {
  uint64_t generation = 0;
  boost::json::object task;
  std::string error;
};

/// Writer -> operation actor or dispatcher: a checkpoint is durable (or not).
struct commit_ack {
  uint64_t tag = 0;
  write_status status = write_status::ok;
  /// On a shared store: the lease's epoch (`lease_keeper::epoch`) under
  /// which it was written.
  uint64_t epoch = 0;
};

/// Operation actor -> dispatcher: (created_atom, tag, create_report), how
/// the create it was spawned to write went.
using created_atom = caf::atom_constant<caf::atom("sw_created")>;

/// How an operation actor's create went.
struct create_report {
  enum class outcome : uint8_t {
    /// Written: `op` is the operation as created.
    written,
    /// Its idempotency key was taken: `op` is the operation that holds it
    /// (null when the create was not to read it: a child's slot).
    replayed,
    /// Not written: `err` says why.
    failed,
  };
  outcome what = outcome::failed;
  op_snapshot op;
  caf::error err;
  /// Written: the lease's epoch it was written under (`commit_ack::epoch`).
  uint64_t epoch = 0;
};

/// An operation read from the store (by id or key), none, or the error.
struct maybe_op {
  std::string id;
  std::optional<operation> value;
  caf::error err;
};

/// Non-terminal operations to resume (recovery, takeover).
struct recovered_ops {
  std::vector<operation> ops;
  /// A page of recovery at start-up that is not known to be the last:
  /// where the next page begins.
  std::optional<active_position> next = std::nullopt;
};

/// Returns a page of recovery read from the store: `ops` and, when the
/// page is full (`limit` operations), the position after its last one.
inline recovered_ops recovery_page(std::vector<operation> ops, size_t limit) {
  recovered_ops out;
  if (!ops.empty() && ops.size() >= limit)
    out.next = active_position{ops.back().created_at, ops.back().id};
  out.ops = std::move(ops);
  return out;
}

// -- commands between processes (engine/command_store.hpp) -----------------------

/// Dispatcher -> reader: (put_command_atom, stored_command) -> seq, 0 for a
/// signal id stored already.
using put_command_atom = caf::atom_constant<caf::atom("sw_putcmd")>;
/// Dispatcher -> reader: (take_commands_atom, owner, limit) ->
/// stored_commands, those for the operations `owner` drives.
using take_commands_atom = caf::atom_constant<caf::atom("sw_takecmd")>;
/// Dispatcher -> reader: (drop_command_atom, seq, command_outcome) -> bool.
using drop_command_atom = caf::atom_constant<caf::atom("sw_dropcmd")>;
/// To the dispatcher (from the writer's lease tick, the store's
/// notifications): read the stored commands for this process.
using commands_poll_atom = caf::atom_constant<caf::atom("sw_cmdpoll")>;
/// Notice pump -> dispatcher: (command_done_atom, seq, command_outcome),
/// what became of a stored command (of any process).
using command_done_atom = caf::atom_constant<caf::atom("sw_cmddone")>;
/// The dispatcher's timer: (command_due_atom, seq), answer a client whose
/// stored command was not heard of in time.
using command_due_atom = caf::atom_constant<caf::atom("sw_cmddue")>;

struct stored_commands {
  std::vector<stored_command> items;
};

/// Writer -> dispatcher: (shed_atom, n), this process drives more than its
/// share: give up to `n` sleeping operations to the others.
using shed_atom = caf::atom_constant<caf::atom("sw_shed")>;
/// Dispatcher -> reader: (release_ops_atom, ids) -> the ids given up
/// (`lease_store::release_operations`).
using release_ops_atom = caf::atom_constant<caf::atom("sw_relops")>;

// -- schedules ----------------------------------------------------------------

/// Schedule keeper -> dispatcher: (fire_atom, start_request), the start of
/// a schedule's fire; answered with a `fire_answer` message to the keeper.
using fire_atom = caf::atom_constant<caf::atom("sw_fire")>;
/// The schedule keeper's timer: (schedule_wake_atom, generation).
using schedule_wake_atom = caf::atom_constant<caf::atom("sw_scwake")>;
/// Dispatcher -> schedule keeper: (op_ended_atom, schedule_id, op_id), an
/// operation a fire started has ended.
using op_ended_atom = caf::atom_constant<caf::atom("sw_opend")>;
/// Keeper -> reader: (load_schedules_atom) -> loaded_schedules.
using load_schedules_atom = caf::atom_constant<caf::atom("sw_scload")>;
/// Keeper -> reader: (load_schedule_atom, id) -> loaded_schedules, the one
/// schedule (none when it is gone).
using load_schedule_atom = caf::atom_constant<caf::atom("sw_scload1")>;
/// The keeper's look at the store for the schedules other processes
/// wrote (a shared store).
using schedule_refresh_atom = caf::atom_constant<caf::atom("sw_scfresh")>;
/// Another process wrote schedules (a notification): read them now.
using schedules_changed_atom = caf::atom_constant<caf::atom("sw_scchang")>;

/// What the dispatcher made of a fire: the operation, or why none.
struct fire_answer {
  std::string schedule_id;
  time_point fire_time;
  std::optional<start_result> started;
  caf::error err;
};

/// Every schedule, as a reader found them (or the error); or, when `only`
/// is set, the schedule of that id.
struct loaded_schedules {
  std::vector<schedule> all;
  caf::error err;
  std::string only;
};

// -- retention ------------------------------------------------------------------

/// Retention keeper -> reader: (purge_atom, purge_request) -> purge_result,
/// one batch.
using purge_atom = caf::atom_constant<caf::atom("sw_purge")>;
/// The retention keeper's timer: (retention_tick_atom, generation).
using retention_tick_atom = caf::atom_constant<caf::atom("sw_rtick")>;

/// The actor that makes requests for threads outside CAF: each job it
/// gets, it runs.
struct bridge_job;
using bridge_actor = caf::typed_actor<caf::reacts_to<bridge_job>>;

/// A request the engine's bridge actor makes, for a thread outside CAF, to
/// the dispatcher or the schedule keeper.
struct bridge_job {
  std::function<void(bridge_actor::pointer self)> run;
};

} // namespace stepwise

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::op_snapshot)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::step_done)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::watch_ready)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::commit_ack)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::maybe_op)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::stored_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::stored_commands)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::create_report)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::recovered_ops)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::active_position)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::admission_round)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::bridge_job)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::fire_answer)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::loaded_schedules)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::next_action)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::time_point)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::duration)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::purge_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::purge_result)
