#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/expected.hpp>

#include "engine/children.hpp"
#include "engine/outcome.hpp"
#include "engine/step_context.hpp"
#include "engine/task_spec.hpp"
#include "engine/time.hpp"

/// Steps that wait for the outside world: a named signal (an external event
/// with a JSON payload, `engine::signal`), a task a watcher actor follows
/// (the infrastructure monitor), or whichever of the two comes first; or
/// for the operation's children (`await_children`). A
/// waiting operation holds no thread and no actor: it is passivated until
/// the wait ends, its timeout passes, or a request addresses it. A wait on
/// a watcher keeps its actor for `passivate_after` first: a task often
/// settles at the watcher's first poll, and a report to a live actor costs
/// no store read.
namespace stepwise {

/// How a watched task settled: the wait step's outcome, values to set in
/// the operation's data, and events to append with it.
struct watch_result {
  outcome result;
  boost::json::object data;
  std::vector<emitted_event> emitted;
};

/// watcher -> dispatcher: (watch_done_atom, watch_reply).
struct watch_reply {
  std::string operation_id;
  std::string step;
  int32_t attempt = 0;
  watch_result result;
  /// When the attempt began, as the request said (none: not checked). A
  /// resumed operation goes on with the same attempt number: a report of
  /// the attempt before the pause, late on its way, is not for this one.
  std::optional<time_point> since;
  /// The step's run, as the request said (none: not checked). A repair
  /// that sends the step back counts its attempts from 1 again, possibly
  /// within the same millisecond: a late report of the run before is not
  /// for this one.
  std::optional<int32_t> run;
  /// The lease count the request was asked under (none: not checked). A
  /// report of a watch asked before this process lost its lease is not
  /// applied: the operation's new actor has told its watcher again, and
  /// that watch reports; applying the old report too would leave the new
  /// watch's task to be handed out after its step succeeded.
  std::optional<uint64_t> lease_epoch{};
};

/// (watch_done_atom, watch_reply) to the dispatcher.
using watch_done_atom = caf::atom_constant<caf::atom("sw_watched")>;
/// (watch_atom, watch_request) to a watcher.
using watch_atom = caf::atom_constant<caf::atom("sw_watch")>;
/// operation actor -> watcher: (unwatch_atom, operation_id, attempt), the
/// operation no longer waits in that attempt (a signal came first, it timed
/// out, it was canceled or paused); a watch of a later attempt stays.
using unwatch_atom = caf::atom_constant<caf::atom("sw_unwatch")>;

/// Where a watcher sends its reports: the dispatcher, as far as watchers
/// know it.
using watch_report_receiver = caf::typed_actor<caf::reacts_to<watch_done_atom, watch_reply>>;

/// A task to follow for a waiting operation: watcher <- operation actor.
struct watch_request {
  std::string operation_id;
  std::string step;
  /// The wait's attempt: the reply must carry it back, so that an answer to
  /// an earlier wait of the same step is told apart.
  int32_t attempt = 0;
  /// When the wait began (stored): a watcher paces and bounds its polls
  /// from here, across restarts.
  time_point since;
  boost::json::object task;
  /// Where the reply goes.
  watch_report_receiver reply_to;
  /// The lease count (actors/lease_keeper.hpp) the operation asked under:
  /// the task broker hands out no task asked under a lease that ended,
  /// since another process drives that operation now. A host's watcher
  /// may ignore it.
  uint64_t lease_epoch = 0;
  /// The step's run (`step_record::run`): with the attempt, it tells this
  /// wait from one before a repair sent the step back.
  int32_t run = 0;
};

/// Returns the report of `req`'s task settling as `result`: a watcher's
/// answer, naming the wait it is for.
inline watch_reply answer_watch(const watch_request& req, watch_result result) {
  return watch_reply{req.operation_id, req.step, req.attempt,    std::move(result),
                     req.since,        req.run,  req.lease_epoch};
}

/// The protocol of a watcher (the infrastructure monitor, or any actor of
/// a host that follows tasks): it is told what to follow and what to stop
/// following, and answers each watch once, with `(watch_done_atom,
/// watch_reply)` to the request's `reply_to` (`answer_watch` builds it, so
/// that it names the wait it is for).
using watcher_actor = caf::typed_actor<caf::reacts_to<watch_atom, watch_request>,
                                       caf::reacts_to<unwatch_atom, std::string, int32_t>>;

/// How a wait step's wait ends.
struct wait_spec {
  /// The name of a signal that ends the wait (empty: none). The first
  /// signal of that name not yet consumed by a wait, stored before or
  /// during the wait, ends it; its payload goes to `data[signal_key]`.
  std::string signal;
  std::string signal_key;
  /// A watcher that follows an external task (a monitor), sent a
  /// `watch_request` when the wait begins and again after a restart, and
  /// answering once the task settles; null: none.
  watcher_actor watcher;
  /// Describes the task to the watcher from the operation (its input and
  /// data). Runs on a blocking worker, so it may read the store.
  std::function<caf::expected<boost::json::object>(step_context&)> task;
  /// Children of the operation to wait for (engine/children.hpp): the
  /// wait ends once enough of them have ended, and leaves each one's
  /// state, data and error in `data.children_results`.
  std::optional<children_wait> children;
  /// A task for workers that poll a queue (engine/task_requests.hpp): the
  /// engine's task broker is its watcher, and the worker's answer decides
  /// the step's outcome.
  std::optional<task_spec> queue;
  /// The wait fails the attempt after this long (retried per the policy).
  std::optional<duration> timeout;
};

/// Returns whether the wait is for a watched task: a watcher's, or one on
/// a task queue.
inline bool is_watched(const wait_spec& w) {
  return w.watcher != nullptr || w.queue.has_value();
}

} // namespace stepwise

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::watch_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::watch_reply)
