#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/event.hpp"
#include "engine/operation.hpp"
#include "engine/outcome.hpp"
#include "engine/step_context.hpp"
#include "engine/workflow.hpp"

namespace stepwise {

/// What the operation actor does once the checkpoint it just built is
/// durable.
struct next_action {
  enum class kind : uint8_t {
    /// Nothing (e.g. a cancel while waiting for a step's late result).
    none,
    /// Run attempt `attempt` of step `step` on a worker.
    run_step,
    /// Arm a timer for `due` (a retry or a sleep), or passivate.
    wait,
    /// The wait of a wait step began (or goes on after a restart): tell
    /// its watcher, if it has one, then passivate until `due` (the wait's
    /// timeout; `time_point::max()` for none).
    await,
    /// The operation is terminal.
    finish,
    /// The operation is paused, or queued for admission: passivate until
    /// a request or an admission wakes it (or its deadline passes).
    park,
  };

  kind what = kind::none;
  size_t step = 0;
  int32_t attempt = 0;
  time_point due;
  /// With `run_step` and `wait`: the step's compensation, not its body.
  bool compensate = false;
};

/// The transitions of an operation: pure functions of (operation, input,
/// now) that mutate the operation, append the events they cause, and say
/// what to do once that is durable. No I/O, no actors: tested on their own.
namespace progress {

/// Records the creation of `op` (`operation_created`) and begins its
/// first step in the same write: one commit less per operation, and a
/// crash right after it simply runs step one again.
next_action create(operation& op, const workflow& wf, time_point now, std::vector<event>& out);

/// Records the creation of `op`, which waits for admission (its workflow
/// has a serialization key or a limit): the store's admission rounds say
/// when it may start.
next_action create_queued(operation& op, time_point now, std::vector<event>& out);

/// Starts whatever comes next: the next attempt of the current step, a
/// sleep, or the end of the operation.
next_action begin_next(operation& op, const workflow& wf, time_point now, std::vector<event>& out);

/// Applies the result of attempt `attempt` of step `idx`. `unit_random` in
/// [0, 1) drives the policy's jitter.
next_action apply_result(operation& op, const workflow& wf, size_t idx, const outcome& result,
                         bool skipped, duration took, time_point now, double unit_random,
                         std::vector<event>& out);

/// The running attempt of step `idx` overran its timeout.
next_action apply_timeout(operation& op, const workflow& wf, size_t idx, time_point now,
                          double unit_random, std::vector<event>& out);

/// The current step's wait is over: finish a sleep, start the retry, or
/// time out a wait step's wait (`unit_random` drives the jitter of its
/// retry).
next_action wake(operation& op, const workflow& wf, time_point now, std::vector<event>& out,
                 double unit_random = 0.5);

/// Returns how to continue an operation loaded after a restart.
next_action recover(operation& op, const workflow& wf, time_point now, std::vector<event>& out);

/// Fails an operation whose workflow version is not registered in this
/// process (the version was removed, or another process sharing the store
/// registers it and this one does not): nothing of its definition can run,
/// not even compensations. The step in flight, if any, fails with it.
/// `registered` lists the versions of the same name that are, for the
/// message (see `unregistered_message`) (progress_unregistered.cpp).
next_action fail_unregistered(operation& op, const std::vector<int32_t>& registered, time_point now,
                              std::vector<event>& out);

/// Returns "unknown workflow 'NAME' version V: not registered in this
/// process (registered: 2, 3)" (or "(no version is registered)").
std::string unregistered_message(const std::string& workflow, int32_t version,
                                 const std::vector<int32_t>& registered);

/// Cancels the operation (the caller checked `allows(op, command::cancel)`); a saga first
/// runs its compensations.
next_action cancel(operation& op, const workflow& wf, time_point now, std::vector<event>& out);

/// Fails the operation because its deadline passed; a saga first runs its
/// compensations (which the deadline does not cut short).
next_action expire(operation& op, const workflow& wf, time_point now, std::vector<event>& out);

/// Applies the result of the running compensation (state `compensating`).
next_action apply_compensation(operation& op, const workflow& wf, const outcome& result,
                               duration took, time_point now, double unit_random,
                               std::vector<event>& out);

/// Returns the index of the step whose compensation runs or is due next,
/// or `op.steps.size()` when none is left.
size_t compensation_cursor(const operation& op, const workflow& wf);

/// Returns the events the running attempt emitted (`step_context::emit`),
/// ready for the log ahead of the events of its result: about the running
/// step (or compensation), with every string of `secrets` masked.
std::vector<event> emitted_events(const operation& op, const workflow& wf,
                                  const std::vector<std::string>& secrets,
                                  std::vector<emitted_event>& emitted, time_point now);

/// Records signal `sig` (`signal_received`); when the operation waits for
/// it at its current step, the signal ends that wait in the same write.
/// Returns what to do next (`none` when it only was stored). The caller
/// checked that the operation is not terminal and that no signal with the
/// same id was stored before.
next_action apply_signal(operation& op, const workflow& wf, signal_record sig, time_point now,
                         std::vector<event>& out);

/// Applies a watcher's report (strings of `secrets` masked in the events
/// it emits). Returns none when it is stale: the operation no longer waits
/// in that attempt of that step.
std::optional<next_action> apply_watch(operation& op, const workflow& wf, const watch_reply& reply,
                                       const std::vector<std::string>& secrets, time_point now,
                                       double unit_random, std::vector<event>& out);

/// Returns whether the operation's current step waits now (its attempt is
/// the wait), and has a watcher following a task.
bool watching(const operation& op, const workflow& wf);

/// Returns the children wait of the operation's current step when that
/// step waits now, or null (progress_children.cpp).
const children_wait* awaiting_children(const operation& op, const workflow& wf);

/// Records the children step `step` started, as (key, id) pairs, in
/// `data.children[STEP][KEY]`.
void note_children(operation& op, const std::string& step,
                   const std::vector<std::pair<std::string, std::string>>& ids);

/// Ends the children wait of the current step per `verdict` (`met` or
/// `failed`): each watched child's `{id, state, data, error}` goes to
/// `data.children_results[STEP][KEY]`, and the step succeeds, or its
/// attempt fails with the verdict's error.
next_action end_children_wait(operation& op, const workflow& wf,
                              const std::vector<child_summary>& watched,
                              const children_verdict& verdict, time_point now, double unit_random,
                              std::vector<event>& out);

/// Retries the operation (the caller checked `allows(op, command::retry)`):
/// a failed one at its failed step (completed steps are never run again),
/// a succeeded one by running its incomplete best-effort steps again, each
/// with a fresh retry budget. One that waits for admission (a key or a
/// limit) is queued again (`park`) until an admission round lets it go on.
/// A canceled one goes on where it stopped; a paused one is resumed.
/// `from` (a retry's `from_step`; none: `op.steps.size()`) sends that step
/// and those after it back to pending first (`reset_from`); a succeeded
/// operation then runs those only, not its incomplete steps before it.
next_action retry(operation& op, const workflow& wf, time_point now, std::vector<event>& out,
                  size_t from = SIZE_MAX);

/// Sends steps `from` and after back to pending for a retry's `from_step`
/// (`steps_reset`): each runs again with a fresh budget; the data they
/// stored stays until they replace it (progress_repair.cpp).
void reset_from(operation& op, size_t from, time_point now, std::vector<event>& out);

/// Records `paths` (JSON pointers a retry's input patch set or removed) as
/// `input_patched`.
void note_patch(operation& op, std::vector<std::string> paths, time_point now,
                std::vector<event>& out);

/// Returns the step a retry begins with: the first that is not settled,
/// or an earlier one whose compensation ran (it was undone).
size_t restart_point(const operation& op);

/// Skips step `idx` at a client's request (the caller checked `allows`):
/// it is recorded `skipped` (`step_skipped`, `extra.reason`) and the
/// operation goes on with the next step. A failed or canceled operation
/// begins a new run (`operation_retried`), a paused one is resumed.
next_action skip(operation& op, const workflow& wf, size_t idx, std::string reason, time_point now,
                 std::vector<event>& out);

/// Pauses the operation at its current step (`operation_paused`, `why` as
/// its error): the step starts afresh when resumed. The caller stopped
/// the attempt in flight, if any.
next_action pause(operation& op, std::string why, time_point now, std::vector<event>& out);

/// Asks for a pause at the next step boundary while an attempt runs.
void request_pause(operation& op, time_point now);

/// Continues a paused operation at the step where it stopped, with a fresh
/// retry budget (`operation_resumed`); withdraws a pause not yet taken.
next_action resume(operation& op, const workflow& wf, time_point now, std::vector<event>& out);

} // namespace progress

} // namespace stepwise
