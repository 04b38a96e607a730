#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "engine/clock.hpp"
#include "engine/step.hpp"
#include "engine/wait.hpp"
#include "infra/driver.hpp"

namespace stepwise::infra {

/// Paces a monitor's polls and bounds how long it waits.
struct monitor_options {
  /// Delay after the first poll that found the task unfinished.
  duration initial_backoff = std::chrono::seconds(1);
  /// Upper bound of the delay between polls.
  duration max_backoff = std::chrono::seconds(60);
  /// Growth of the delay per poll.
  double multiplier = 2.0;
  /// Time from the start of the wait after which the task counts as lost.
  duration deadline = std::chrono::hours(1);
  /// Most polls the monitor sends its driver in any second (cloud APIs
  /// limit their callers); polls beyond it wait their turn.
  int32_t max_polls_per_second = 10000;
};

/// What a monitor counts, for metrics and tests. Updated by the monitor's
/// actor, read from any thread.
struct monitor_stats {
  std::atomic<uint64_t> polls{0};
  std::atomic<uint64_t> reports{0};
  /// Tasks followed now, and polls sent and not yet answered.
  std::atomic<int64_t> watching{0};
  std::atomic<int64_t> in_flight{0};
};

/// Returns the delay before poll `attempt + 1` (attempt is 1-based).
duration monitor_backoff(const monitor_options& opts, int32_t attempt);

/// Spawns the monitor of `drv`: one actor that owns every outstanding
/// create or delete task of that driver for the operations that wait on
/// them (a watcher, see engine/wait.hpp). It polls each task with
/// `get_task` on its own timers (the engine's clock), first at once, then
/// after a growing backoff, bounded by the deadline counted from the start
/// of the wait and by the cap on polls per second; the answers arrive as
/// messages, so no poll holds a thread. It reports to the waiting
/// operation once per watch:
///
/// - COMPLETE: success, with the outputs under the task's `outputs_key`
///   and an `infrastructure_task_completed` event;
/// - FAILED: failure `"<FAILURE_CODE>: <description>"` with the event;
/// - not found, request not found, any other error but `temporary` and
///   `unreachable_location` (which poll again), or the deadline: failure
///   `"INTERNAL_ERROR: ..."` with a FAILED event.
///
/// The operation writes the report and its event in one commit; a crash
/// before that commit tells the monitor again (after the restart, or on
/// the process that takes the operation over), so each request id is
/// reported exactly once in the log. A task is never dropped but by a
/// report or by its operation leaving the wait.
watcher_actor spawn_monitor(caf::actor_system& sys, std::shared_ptr<driver> drv,
                            std::shared_ptr<stepwise::clock> clk, monitor_options opts,
                            std::shared_ptr<monitor_stats> stats = nullptr);

/// Returns a monitor's task: `{"infrastructure_id", "request_id",
/// "deployment_location", "outputs_key"}`. The location may hold
/// credentials: it travels in messages only, never in the store or a log.
boost::json::object monitor_task(const accepted& ids, const deployment_location& loc,
                                 const std::string& outputs_key);

/// Returns the deployment location of the monitored task (may block: it
/// runs on a worker).
using location_fn = std::function<result<deployment_location>(step_context&)>;

/// Says where a monitor step finds its task and where the outputs go.
struct monitor_source {
  /// Key of `{"infrastructure_id", "request_id"}` in the operation's data;
  /// empty: those two fields at the top level of the input.
  std::string task_key;
  /// Key in the data for a COMPLETE task's outputs; empty: not stored.
  std::string outputs_key = "outputs";
  /// Default: `/deployment_location` of the input.
  location_fn location;
};

/// Returns a wait step that waits until `monitor` reports the task `src`
/// names as settled (see `spawn_monitor`). Waiting holds no thread and,
/// once it has lasted `passivate_after`, no actor: the operation passivates.
step_def make_monitor_step(std::string name, watcher_actor monitor, monitor_source src = {});

} // namespace stepwise::infra
