#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "engine/actor_step.hpp"
#include "engine/async_call.hpp"
#include "engine/outcome.hpp"
#include "engine/retry_policy.hpp"
#include "engine/step_context.hpp"
#include "engine/wait.hpp"

namespace stepwise {

/// The body of a step. Runs on a blocking worker, never on a CAF scheduler
/// thread; may block. An exception it throws becomes `fail(what())`.
using step_fn = std::function<outcome(step_context&)>;

/// The body of an asynchronous step: it starts the work and returns at once
/// (it runs on the operation's actor and must not block); the work ends the
/// attempt later with `async_call::complete`, from any thread. An exception
/// it throws becomes `fail(what())`.
using async_step_fn = std::function<void(async_call)>;

/// Skips the step when it returns false (the skip is recorded).
using step_condition = std::function<bool(const step_context&)>;

/// One step of a workflow definition.
struct step_def {
  std::string name;
  /// Order within the workflow (ascending; ties keep registration order).
  int32_t weight = 1;
  /// The body, one of three kinds: blocking (`run`, on a worker),
  /// asynchronous (`start`), or a step actor (`actor`, sent a
  /// `step_attempt` per attempt; see engine/actor_step.hpp).
  step_fn run;
  async_step_fn start;
  step_actor actor;
  /// An asynchronous body whose start may block briefly (a store read)
  /// starts on a worker, which it frees as soon as it returns; the wait
  /// for its completion still holds no thread.
  bool start_on_worker = false;
  /// A blocking body that only computes (microseconds: no I/O, no lock
  /// held for long) runs on the operation's actor instead of a worker, and
  /// its result is applied at once: no thread is woken for it. A body that
  /// does block holds a CAF scheduler thread meanwhile. Its timeout cannot
  /// interrupt it (nothing else runs on the actor until it returns). An
  /// attempt that a timer begins (`engine_config::dispatch_lead`) runs on
  /// a worker instead, at its due time.
  bool runs_inline = false;
  /// Bounds the retries; without one retries are unbounded.
  std::optional<retry_policy> policy;
  /// An attempt running longer is reported as timed out (and retried per
  /// policy); the worker is not waited for.
  std::optional<duration> timeout;
  std::optional<step_condition> condition;
  /// After its retries run out, the operation goes on and the step is
  /// recorded as incomplete.
  bool best_effort = false;
  /// The step sets transient values (overrides), which are never stored:
  /// once it succeeded, it runs again (quietly: no record, no event)
  /// before the next step that uses them (`uses_transient`) whenever the
  /// operation goes on in a new actor
  /// (after a restart, a takeover, a wake-up from passivation, a retry).
  /// Its body must be safe to run again; only blocking and asynchronous
  /// steps may set it.
  bool produces_transient = false;
  /// The step reads transient values: those steps run again before it
  /// only. When no step of a workflow says so, they run again before
  /// whichever step comes next.
  bool uses_transient = false;
  /// Set for a durable sleep: the step completes `sleep` after it starts.
  std::optional<duration> sleep;
  /// Set for a wait on the outside world (a signal, a watched task): each
  /// attempt waits, holding no thread and no actor, until the wait ends
  /// (see engine/wait.hpp).
  std::optional<wait_spec> wait;
  /// Undoes the step (a saga): when a later step fails the operation, or
  /// the operation is canceled, the compensations of the steps that
  /// succeeded run in reverse order. Retried per `policy` (attempts only);
  /// `timeout` and `condition` do not apply to it. Blocking
  /// (`compensate`, on a worker) or asynchronous (`compensate_async`).
  step_fn compensate;
  async_step_fn compensate_async;
  /// What the operation's cancel does to the unfinished children this
  /// step started (`step_context::start_child`).
  child_policy children_on_cancel = child_policy::cancel;

  // -- fluent setters ---------------------------------------------------------

  step_def& with_policy(retry_policy p) {
    policy = std::move(p);
    return *this;
  }

  step_def& with_timeout(duration d) {
    timeout = d;
    return *this;
  }

  step_def& when(step_condition c) {
    condition = std::move(c);
    return *this;
  }

  step_def& with_compensation(step_fn fn) {
    compensate = std::move(fn);
    return *this;
  }

  step_def& with_async_compensation(async_step_fn fn) {
    compensate_async = std::move(fn);
    return *this;
  }

  /// Starts each attempt of an asynchronous body on a worker (see
  /// `start_on_worker`).
  step_def& starting_on_worker(bool flag = true) {
    start_on_worker = flag;
    return *this;
  }

  /// Runs the blocking body on the operation's actor (see `runs_inline`).
  step_def& running_inline(bool flag = true) {
    runs_inline = flag;
    return *this;
  }

  step_def& as_best_effort(bool flag = true) {
    best_effort = flag;
    return *this;
  }

  /// Marks the step as one that sets transient values (see
  /// `produces_transient`).
  step_def& producing_transient(bool flag = true) {
    produces_transient = flag;
    return *this;
  }

  /// Marks the step as one that reads transient values (see
  /// `uses_transient`).
  step_def& using_transient(bool flag = true) {
    uses_transient = flag;
    return *this;
  }

  /// Lets signal `name` end this wait step's wait as well (whichever comes
  /// first); its payload goes to `data[key]` (default: `name`).
  step_def& or_signal(std::string name, std::string key = {}) {
    if (!wait)
      wait = wait_spec{};
    wait->signal_key = key.empty() ? name : std::move(key);
    wait->signal = std::move(name);
    return *this;
  }

  /// Bounds each wait of a wait step: after `d` the attempt fails (and is
  /// retried per the policy, if the step has one).
  step_def& with_wait_timeout(duration d) {
    if (wait)
      wait->timeout = d;
    return *this;
  }

  /// Fails a task step's attempt when no worker took its task within `d`
  /// (see engine/task_spec.hpp).
  step_def& with_start_timeout(duration d) {
    if (wait && wait->queue)
      wait->queue->start_timeout = d;
    return *this;
  }

  /// Fails a task step's attempt when its worker stays silent for `d`.
  step_def& with_heartbeat_timeout(duration d) {
    if (wait && wait->queue)
      wait->queue->heartbeat_timeout = d;
    return *this;
  }

  /// Lets the children this step starts run on when the operation is
  /// canceled (the default cancels them).
  step_def& abandoning_children(bool flag = true) {
    children_on_cancel = flag ? child_policy::abandon : child_policy::cancel;
    return *this;
  }

  // -- children waits (`await_children`) ---------------------------------------

  /// Ends the wait once every watched child has ended (the default).
  step_def& needing_all() {
    return needing_quorum(children_quorum::all, 0);
  }

  /// Ends the wait once any watched child has ended.
  step_def& needing_any() {
    return needing_quorum(children_quorum::any, 0);
  }

  /// Ends the wait once `n` watched children have ended; fails it when
  /// fewer than `n` exist.
  step_def& needing(size_t n) {
    return needing_quorum(children_quorum::at_least, n);
  }

  /// Counts a child that failed or was canceled as ended, instead of
  /// failing the wait.
  step_def& accepting_failures(bool flag = true) {
    if (wait && wait->children)
      wait->children->accept_failures = flag;
    return *this;
  }

  /// Sets what a children wait needs (see the three above).
  step_def& needing_quorum(children_quorum q, size_t n) {
    if (wait && wait->children) {
      wait->children->quorum = q;
      wait->children->n = n;
    }
    return *this;
  }
};

/// Returns a step named `name` running `fn`.
inline step_def make_step(std::string name, step_fn fn) {
  step_def s;
  s.name = std::move(name);
  s.run = std::move(fn);
  return s;
}

/// Returns an asynchronous step named `name`: `fn` starts each attempt and
/// returns; the attempt ends when its `async_call` is completed. Waiting
/// holds no thread, so thousands of attempts may be in flight at once.
inline step_def make_async_step(std::string name, async_step_fn fn) {
  step_def s;
  s.name = std::move(name);
  s.start = std::move(fn);
  return s;
}

/// Returns a step whose attempts `actor` carries out: each is sent to it as
/// a `step_attempt` request and ends with its `step_reply`. An error answer
/// fails the attempt; an actor that is gone is retried per the policy.
inline step_def make_actor_step(std::string name, step_actor actor) {
  step_def s;
  s.name = std::move(name);
  s.actor = std::move(actor);
  return s;
}

/// Returns a step that waits for signal `signal` (`engine::signal`,
/// `POST /api/v1/operations/{id}/signals/{signal}`), received before or
/// during the wait, and puts its payload in `data[signal]`. With a
/// `timeout`, a wait that lasts longer fails the attempt.
inline step_def await_signal(std::string name, std::string signal,
                             std::optional<duration> timeout = std::nullopt) {
  step_def s;
  s.name = std::move(name);
  s.wait = wait_spec{};
  s.wait->signal_key = signal;
  s.wait->signal = std::move(signal);
  s.wait->timeout = timeout;
  return s;
}

/// Returns a step that waits until `watcher` (a monitor actor) reports the
/// task that `task` describes as settled; the report decides the step's
/// outcome. `task` runs on a blocking worker (it may read the store) each
/// time the wait begins or is resumed after a restart.
inline step_def await_task(std::string name, watcher_actor watcher,
                           std::function<caf::expected<boost::json::object>(step_context&)> task) {
  step_def s;
  s.name = std::move(name);
  s.wait = wait_spec{};
  s.wait->watcher = std::move(watcher);
  s.wait->task = std::move(task);
  return s;
}

/// Returns a step that workers in any language carry out: each attempt is
/// a task on `queue`, handed to a worker that polls it (`POST
/// /api/v1/tasks/poll`, engine/task_requests.hpp), whose answer is the
/// step's outcome. The operation waits holding no thread and no actor.
/// After a restart the attempt's task is ready again.
inline step_def make_task_step(std::string name, std::string queue) {
  step_def s;
  s.name = std::move(name);
  s.wait = wait_spec{};
  s.wait->queue = task_spec{std::move(queue), std::nullopt, std::nullopt};
  return s;
}

/// Returns a step that waits, holding no thread and no actor, until the
/// children that step `of_step` started have ended (empty: every child of
/// the operation): all of them (`needing_all`, the default), any
/// (`needing_any`) or `n` (`needing(n)`). A child that failed or was
/// canceled fails the wait unless it `accepting_failures()`. When the wait
/// ends, `data.children_results[STEP][KEY]` holds each watched child's
/// `{id, state, data, error}`.
inline step_def await_children(std::string name, std::string of_step = {}) {
  step_def s;
  s.name = std::move(name);
  s.wait = wait_spec{};
  s.wait->children = children_wait{};
  s.wait->children->of_step = std::move(of_step);
  return s;
}

/// Returns a step from a class with `name()` and `outcome run(step_context&)`
/// (the Step interface of the Kyma Environment Broker). The object is shared by all operations and
/// must be safe to call from several workers at once.
template <class T, class... Ts>
step_def make_step(Ts&&... xs) {
  auto obj = std::make_shared<T>(std::forward<Ts>(xs)...);
  step_def s;
  s.name = obj->name();
  s.run = [obj](step_context& ctx) { return obj->run(ctx); };
  return s;
}

/// Returns a durable sleep of `d`: its due time is stored, so it survives
/// restarts, and it holds no thread while it waits.
inline step_def make_sleep(std::string name, duration d) {
  step_def s;
  s.name = std::move(name);
  s.sleep = d;
  return s;
}

} // namespace stepwise
