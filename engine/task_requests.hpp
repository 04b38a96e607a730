#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "engine/async_call.hpp"
#include "engine/task_spec.hpp"
#include "engine/time.hpp"

/// The requests of workers that carry out task steps (engine/task_spec.hpp),
/// which the task broker (one actor per engine, `engine::tasks()`) answers.
/// A task is one attempt of a task step: a worker takes it by polling its
/// queue, may send heartbeats while it works, and answers it once with the
/// step's outcome. The token it was given names that attempt: an answer
/// for an attempt that is no longer current is `errc::stale_task`.
namespace stepwise {

/// (task_poll_atom, task_poll) -> std::vector<task_lease>.
using task_poll_atom = caf::atom_constant<caf::atom("sw_tpoll")>;
/// (task_beat_atom, task_beat) -> task_beat_result.
using task_beat_atom = caf::atom_constant<caf::atom("sw_tbeat")>;
/// (task_answer_atom, task_answer) -> bool (true).
using task_answer_atom = caf::atom_constant<caf::atom("sw_tanswer")>;
/// (task_queues_atom) -> std::vector<task_queue_view>, by name.
using task_queues_atom = caf::atom_constant<caf::atom("sw_tqueues")>;

/// (task_offer_atom, task_offer): a task that is not a task step's wait (a
/// compensation), ended by its `async_call` instead of a watch's report.
using task_offer_atom = caf::atom_constant<caf::atom("sw_toffer")>;

/// One attempt of an asynchronous step carried out as a task (the
/// compensation of a task step, engine/workflow_json.hpp).
struct task_offer {
  /// The queue and its timeouts.
  task_spec spec;
  /// The step name workers see (the compensation's name).
  std::string step;
  std::string workflow;
  async_call call;
};

/// A worker asks for tasks of a queue.
struct task_poll {
  std::string queue;
  /// Names the worker (in listings and events of its tasks).
  std::string worker;
  /// At most this many tasks (1 to 100).
  size_t max = 1;
  /// Waits this long for a task when none is ready (a long poll that holds
  /// no thread); zero answers at once.
  duration wait{0};
};

/// A task handed to a worker.
struct task_lease {
  /// Names this attempt in the worker's heartbeats and answer.
  std::string token;
  std::string operation_id;
  std::string workflow;
  std::string step;
  int32_t attempt = 0;
  /// The operation's input, secrets included (the worker needs them), and
  /// its data as it is when the attempt began.
  boost::json::object input;
  boost::json::object data;
  /// When the attempt times out whatever the worker does (none: never).
  std::optional<time_point> deadline;
  /// The longest the worker may stay silent (none: no heartbeat needed).
  std::optional<duration> heartbeat_timeout;
  /// The last heartbeat details of an earlier attempt of this step.
  boost::json::object details;
  /// When the task became ready in its queue (the worker's clock may tell
  /// how long it waited).
  time_point ready_at;
};

/// A worker's heartbeat: it still works on the task.
struct task_beat {
  std::string token;
  /// Progress the worker wants back if the task is handed out again (the
  /// next attempt's lease carries the last details of the step; kept in
  /// memory only).
  boost::json::object details;
};

/// The answer to a heartbeat.
struct task_beat_result {
  /// The operation no longer waits for this attempt (canceled, paused, or
  /// the step timed out): the worker may stop.
  bool cancel_requested = false;
};

/// A worker's answer for a task: the step's outcome, as a C++ step's
/// `done`, `retry_after` or `fail`.
struct task_answer {
  enum class kind : uint8_t { complete, fail };
  std::string token;
  kind what = kind::complete;
  /// With `complete`: merged into the operation's data.
  boost::json::object data;
  /// With `fail`: the error, and when to try again (none: the policy's
  /// delay) unless `non_retryable` fails the step for good.
  std::string error;
  std::optional<duration> retry_after;
  bool non_retryable = false;
};

/// A worker a queue has seen.
struct task_worker_view {
  std::string name;
  time_point last_seen;
};

/// One queue as the broker of this process knows it.
struct task_queue_view {
  std::string name;
  /// Tasks ready, not yet taken.
  size_t ready = 0;
  /// Tasks a worker holds.
  size_t taken = 0;
  /// When the oldest ready task became ready (none: no task is ready).
  std::optional<time_point> oldest_ready;
  /// Workers polling now.
  size_t pollers = 0;
  std::vector<task_worker_view> workers;
};

/// The task broker as a host talks to it. Errors come as `caf::error` with
/// an `errc` code: `invalid_argument` (naming the field) or `stale_task`.
using tasks_actor =
  caf::typed_actor<caf::replies_to<task_poll_atom, task_poll>::with<std::vector<task_lease>>,
                   caf::replies_to<task_beat_atom, task_beat>::with<task_beat_result>,
                   caf::replies_to<task_answer_atom, task_answer>::with<bool>,
                   caf::replies_to<task_queues_atom>::with<std::vector<task_queue_view>>>;

} // namespace stepwise

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::task_poll)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::task_answer)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::task_beat)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::task_offer)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::task_beat_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<stepwise::task_lease>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<stepwise::task_queue_view>)
