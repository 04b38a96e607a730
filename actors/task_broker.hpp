#pragma once

#include <deque>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include <caf/typed_response_promise.hpp>

#include "actors/messages.hpp"
#include "actors/runtime.hpp"
#include "engine/task_requests.hpp"
#include "engine/wait.hpp"

/// The task broker: one actor per engine, the watcher of every task step
/// (engine/task_spec.hpp) and what workers poll (engine/task_requests.hpp).
/// An operation that reaches a task step tells it the attempt's task (as a
/// `watch_request`, again after a restart or a wake-up) and passivates; a
/// worker's answer, or a start or heartbeat timeout, goes back to it as
/// the wait's report. What the broker holds is in memory: the task itself
/// is durable as the step's stored attempt, so after a restart the
/// operation hands it over again and it is ready for the next poll.
namespace stepwise {

using task_tick_atom = caf::atom_constant<caf::atom("sw_ttick")>;

/// The broker's protocols: a watcher's, the workers', and its own timer.
using task_broker_actor =
  watcher_actor::extend_with<tasks_actor>::extend<caf::reacts_to<task_tick_atom, uint64_t>,
                                                  caf::reacts_to<task_offer_atom, task_offer>,
                                                  caf::reacts_to<lease_lost_atom>>;

/// One task: an attempt of a task step that an operation waits on, or of
/// a task step's compensation (`call` set).
struct held_task {
  /// Where `tasks` holds it: the operation's id, and for a compensation
  /// `~compensation` after it (an operation runs one at a time).
  std::string key;
  watch_request req;
  std::optional<async_call> call;
  std::string queue;
  /// Orders the queue's ready tasks: oldest first.
  uint64_t seq = 0;
  /// When it became ready.
  time_point ready_at;
  std::optional<duration> start_timeout;
  std::optional<duration> heartbeat_timeout;
  std::optional<time_point> deadline;
  /// Set once a worker took it (the token's last part).
  std::string nonce;
  std::string worker;
  /// When the worker's silence ends the attempt (with a heartbeat timeout).
  std::optional<time_point> beat_due;
  /// The operation no longer waits for it: kept only so that the worker's
  /// heartbeats learn that, until `drop_at`.
  bool canceled = false;
  time_point drop_at;
  /// The attempt ended (a worker's answer, a timeout): its report, sent
  /// again now and then until the operation says it left the wait (an
  /// unwatch, or a watch of another attempt). A report can be lost on its
  /// way (the dispatcher could not read the passive operation), and
  /// nothing else would end the wait.
  std::optional<watch_reply> report;
  duration resend_gap{0};
  time_point reported_at;
  time_point resend_at;
};

/// A long poll waiting for a task.
struct waiting_poll {
  uint64_t id = 0;
  task_poll poll;
  caf::typed_response_promise<std::vector<task_lease>> promise;
};

struct task_broker_state {
  static inline const char* name = "stepwise.task_broker";

  runtime_ptr rt;
  /// By key (an operation waits on one task at a time).
  std::unordered_map<std::string, held_task> tasks;
  /// Per queue, the ready tasks: (when the attempt began, seq, op id).
  std::map<std::string, std::set<std::tuple<time_point, uint64_t, std::string>>> ready;
  std::map<std::string, std::deque<waiting_poll>> polls;
  /// The queue of each waiting poll, by its id.
  std::unordered_map<uint64_t, std::string> poll_queues;
  /// Per queue, the workers seen and when.
  std::map<std::string, std::map<std::string, time_point>> workers;
  /// The last heartbeat details of a step's attempt, by operation id:
  /// (step, details), handed to its next attempt.
  std::unordered_map<std::string, std::pair<std::string, boost::json::object>> details;
  /// What is due when: an operation's task (op id) or a poll (its id, as
  /// text after '#').
  std::multimap<time_point, std::string> due;
  std::optional<time_point> armed;
  uint64_t timer_gen = 0;
  uint64_t next_seq = 0;
  uint64_t next_poll = 0;
  /// Draws the tokens' nonces: seeded once from the system's entropy (a
  /// `random_device` per token cost more than the rest of handing it out).
  std::mt19937_64 rng{std::random_device{}()};
};

using task_broker_ptr = task_broker_actor::stateful_pointer<task_broker_state>;

/// Spawned by `launch_runtime`.
task_broker_actor::behavior_type task_broker(task_broker_ptr self, runtime_ptr rt);

// -- the broker's parts (actors/task_broker_work.cpp) ------------------------

/// Returns the task that `req` describes (not yet ready).
held_task make_held(task_broker_ptr self, watch_request req);
/// Whether `req` was asked under a lease of this process that has ended.
bool of_ended_lease(task_broker_ptr self, const watch_request& req);

/// Puts `t` (held in `tasks`) in its queue's ready tasks.
void make_ready(task_broker_ptr self, held_task& t);

/// Hands up to `max` ready tasks of `queue` to `worker`.
std::vector<task_lease> take_tasks(task_broker_ptr self, const std::string& queue, size_t max,
                                   const std::string& worker);

/// Answers the long polls of `queue` while tasks are ready.
void serve_polls(task_broker_ptr self, const std::string& queue);

/// Ends the attempt of the task of operation `id` with `result` (a
/// worker's answer or a timeout) and forgets it.
void end_task(task_broker_ptr self, const std::string& id, outcome result,
              boost::json::object data);

/// Takes ready task `t` out of its queue's ready tasks.
void unready(task_broker_ptr self, const held_task& t);

/// Forgets the task of operation `id` (taking it out of its queue).
void drop_task(task_broker_ptr self, const std::string& id);

/// Sends the report of ended task `t` again (to its latest `reply_to`),
/// and arms the next time; forgets it after an hour.
void resend_report(task_broker_ptr self, held_task& t);

/// Arms the broker's timer for `at` (an earlier timer stays).
void wake_at(task_broker_ptr self, time_point at, std::string what);

} // namespace stepwise
