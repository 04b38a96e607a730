#pragma once

#include <vector>

#include <caf/make_message.hpp>
#include <caf/result.hpp>

#include "actors/messages.hpp"
#include "actors/operation_actor.hpp"

/// The operation actor's own functions, shared by its source files
/// (operation_actor.cpp: its life in outline, its behavior, start, steps;
/// operation_results.cpp: results and their checkpoints (persist);
/// acknowledgements (on_ack); operation_create.cpp: its create;
/// operation_timers.cpp: timers, admission;
/// operation_passivation.cpp: giving the actor up while it waits long;
/// operation_requests.cpp: commands and signals; operation_waits.cpp:
/// waits and their watchers). Not for other actors.
namespace stepwise::op {

using self_ptr = operation_actor::stateful_pointer<operation_state>;

/// Returns the watcher of wait step `def`: its own, or the task broker
/// for a task step.
inline const watcher_actor& watcher_of(const operation_state& st, const step_def& def) {
  return def.wait->queue ? st.rt->task_watcher : def.wait->watcher;
}

/// Returns a number in [0, 1) for a policy's jitter.
double unit_random(operation_state& st);

/// Writes the working copy with `events`; `act` runs once it is durable.
void persist(self_ptr self, std::vector<event> events, next_action act);

/// Sets up what every operation actor has: runtime, dispatcher, workflow,
/// lease epoch (operation_actor.cpp).
void take_up(self_ptr self, runtime_ptr rt, internal_dispatcher_actor dispatcher, workflow_ptr wf);

/// The operation actor's behavior: every message it takes, by whom it is
/// sent (operation_actor.cpp).
operation_actor::behavior_type lifecycle(self_ptr self);

/// The create in flight is answered `ack`: tells the dispatcher how it
/// went and returns true when it was written, so that the actor carries
/// on as after any commit; otherwise it has quit, or writes the create
/// again (operation_create.cpp).
bool created(self_ptr self, const commit_ack& ack);

/// Carries out `act` (its write is durable).
void execute(self_ptr self, next_action act);

/// Applies the result of an attempt (a `step_done` message, or the result
/// of an attempt that ended at once).
void on_step_done(self_ptr self, step_done& msg);

/// Passivates the operation until `due` (its deadline, if earlier) once
/// what is in the mailbox now is handled, and returns true
/// (operation_passivation.cpp). Returns false, keeping the actor, when
/// that is within `wake_lead`: the dispatcher would read it back at once,
/// again and again until then. The caller arms its timer.
bool passivate(self_ptr self, time_point due);

/// How long before a wait ends its timer fires: `dispatch_lead` when the
/// wake-up begins a blocking step (its attempt is handed to the workers
/// then, to start when due), else zero.
duration start_lead(const operation_state& st);

/// Delivers the message `xs...` to the actor at `due` on the engine's clock.
template <class... Ts>
void arm(self_ptr self, time_point due, Ts&&... xs) {
  self->state.rt->stats.timers_pending.fetch_add(1, std::memory_order_relaxed);
  ++self->state.timers_out;
  self->state.rt->clk->send_at(due, self, std::forward<Ts>(xs)...);
}

/// Counts a timer of `arm` as delivered.
inline void timer_delivered(self_ptr self) {
  self->state.rt->stats.timers_pending.fetch_sub(1, std::memory_order_relaxed);
  --self->state.timers_out;
}

/// Returns whether `op` may give up its actor: it waits for a time, a
/// request or its admission.
bool parked(const operation& op);

/// Asks the attempt in flight to stop (its stop token, and a message to a
/// step actor); its result is still awaited.
void stop_attempt(self_ptr self, const char* why);

/// Gives up the attempt in flight, if any: its late result will be dropped
/// (a new generation), and the step is asked to stop.
void abandon(self_ptr self, const char* why);

/// Runs `fn` now, or after the commit in flight when there is one.
template <class F>
void when_idle(self_ptr self, F fn) {
  if (self->state.commit.busy())
    self->state.commit.deferred.emplace_back(std::move(fn));
  else
    fn();
}

/// Carries out an `await` action: tells the wait's watcher (once per
/// attempt), then passivates or arms the wait's timeout.
void await(self_ptr self, const next_action& act);

// -- transient values (operation_transient.cpp) -------------------------------

/// Called before `act` (a `run_step`) runs. When the values of
/// `producing_transient` steps that succeeded before this actor began are
/// missing and the step uses them, runs those steps again first, then
/// `act`, and returns true.
bool prepare_transient(self_ptr self, const next_action& act);

/// Takes `msg` if it is the result of a step run again for its transient
/// values: the next one runs, or the action they ran before; if it did not
/// succeed, its outcome becomes that of the step waiting for it.
bool take_rebuilt(self_ptr self, step_done& msg);

/// Notes the transient values a step left (already in `transient`): new
/// ones from a step that will not run again pin the actor.
void note_transient(self_ptr self);

/// Returns whether the actor may passivate without losing a transient
/// value that nothing would set again.
bool may_drop_transient(const operation_state& st);

// -- secret values (operation_secrets.cpp) ------------------------------------

/// Returns the input with its secret values opened (the input itself when
/// the workflow declares none), opened once per actor. Fails with
/// `errc::secret_key`, naming the key id, when one cannot be opened.
caf::expected<std::shared_ptr<const boost::json::object>> opened_input(operation_state& st);

/// Returns the strings to mask in an error of the operation: its secret
/// input values (opened ones when the input was opened), its secret
/// transient values, and `revealed` (what the attempt kept or opened).
std::vector<std::string> secrets_of(const operation_state& st,
                                    const std::vector<std::string>& revealed = {});

/// Seals the data's secret values again with the current key when another
/// key sealed them (an actor that starts after a key rotation).
void reseal_data(operation_state& st);

/// Applies a retry's input `patch` (RFC 7396) to the stored input: secret
/// paths it sets are sealed anew, the rest stays sealed. Returns the paths
/// it set or removed; fails (`errc::secret_key`) when it cannot seal,
/// leaving the input as it was.
caf::expected<std::vector<std::string>> patch_input(operation_state& st,
                                                    const boost::json::object& patch);

/// Returns the context of an attempt of `step`, with the engine's key ring.
step_context context_for(operation_state& st, const std::string& step, int32_t attempt,
                         std::shared_ptr<const boost::json::object> input, boost::json::object data,
                         transient_map transient, stop_token stop = {});

// -- child operations (operation_children.cpp) --------------------------------

/// Starts the children the attempt `r` (`done`) asked for; its result
/// (`events` with it, as of `now`) is written once they exist.
void start_children(self_ptr self, step_result& r, time_point now, std::vector<event> events);

/// Carries out the `await` of a children wait: looks at the children.
void await_children(self_ptr self, const next_action& act);

/// Tells the dispatcher that the working copy left the children wait the
/// durable state had (it stops counting for it). Called before a commit.
void leave_children_wait(self_ptr self);

// -- message handlers (the behavior in operation_actor.cpp lists them) -------

// Timers, admission and passivation (operation_timers.cpp). A timer that
// fires while a commit is in flight runs once the commit is durable.

/// A due wait or retry.
void on_timer(self_ptr self, uint64_t gen);
/// The lease may be held again: the step held back may begin.
void on_lease_wait(self_ptr self, uint64_t gen);
/// An attempt overran its step's timeout.
void on_step_timeout(self_ptr self, uint64_t gen);
/// The operation's deadline passed.
void on_deadline(self_ptr self);
/// An admission round admitted the operation, as of `revision`.
void on_admitted(self_ptr self, int64_t revision);
/// The passivation decided as of `gen` is due: hands the operation to
/// the dispatcher if nothing changed since, else keeps it here
/// (operation_passivation.cpp).
void on_passivate(self_ptr self, uint64_t gen);

// Client requests (operation_requests.cpp).

/// Cancel, retry, pause or resume; answered once written.
caf::result<operation> on_get(self_ptr self);
caf::result<operation> on_command(self_ptr self, const command_request& req, int64_t consumes = 0);
/// A signal; answered once written (or at once, for a repeat).
caf::result<signal_result> on_signal(self_ptr self, signal_request& req, int64_t consumes = 0);
/// Ends an ended operation's actor once nothing is left to do.
void on_settle(self_ptr self);

// Waits and their watchers (operation_waits.cpp).

/// A wait's task was described on a worker: hand it to the watcher.
void on_ready(self_ptr self, watch_ready& ready);
/// The watcher's report on a task.
void on_report(self_ptr self, watch_reply& reply);
/// A watched wait has lasted `passivate_after`.
void on_linger(self_ptr self, uint64_t gen, time_point due);

// Child operations (operation_children.cpp).

/// The children a step asked for were started (or could not be).
void on_children_started(self_ptr self, children_started& msg);
/// A reader's list of the children.
void on_children_read(self_ptr self, children_read& read);
/// Enough children ended (the dispatcher), or it is time to look again.
void on_children_nudge(self_ptr self, uint64_t seq);

} // namespace stepwise::op
