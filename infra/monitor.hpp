#pragma once

#include <functional>
#include <memory>
#include <string>

#include "infra/driver.hpp"
#include "engine/step.hpp"

namespace stepwise::infra {

/// Paces a monitor's polls and bounds how long it waits.
struct monitor_options {
  /// Delay after the first poll that found the task unfinished.
  duration initial_backoff = std::chrono::seconds(1);
  /// Upper bound of the delay between polls.
  duration max_backoff = std::chrono::seconds(60);
  /// Growth of the delay per poll.
  double multiplier = 2.0;
  /// Time from the first poll after which the task counts as lost.
  duration deadline = std::chrono::hours(1);
};

/// Returns the deployment location of the monitored task.
using location_fn = std::function<result<deployment_location>(step_context&)>;

/// Says where a monitor finds its task and where it puts the outputs.
struct monitor_source {
  /// Key of `{"infrastructure_id", "request_id"}` in the operation's data;
  /// empty: those two fields at the top level of the input.
  std::string task_key;
  /// Key in the data for a COMPLETE task's outputs; empty: not stored.
  std::string outputs_key = "outputs";
  /// Default: `/deployment_location` of the input.
  location_fn location;
};

/// Returns the delay before poll `attempt + 1` (attempt is 1-based).
duration monitor_backoff(const monitor_options& opts, int32_t attempt);

/// Returns a step that watches a create or delete task. Each attempt polls
/// `get_task` once; an unfinished task, a temporary error or an unreachable
/// location asks for another attempt after a growing backoff. Those waits
/// are the operation's durable timers: they survive restarts, and a long
/// wait passivates the operation. The step ends the watch exactly once:
///
/// - COMPLETE: stores the outputs, emits `infrastructure_task_completed`
///   and completes;
/// - FAILED: emits the event and fails with `"<FAILURE_CODE>: <description>"`;
/// - not found, request not found, any other error, or the deadline (from
///   the first poll, whose time is kept in the data under
///   `monitors.<step name>`): emits FAILED with INTERNAL_ERROR and fails.
///
/// The event is committed with the attempt's result, so a crash before the
/// commit polls again and the event still appears once.
step_def make_monitor_step(std::string name, std::shared_ptr<driver> drv,
                           monitor_options opts, monitor_source src = {});

} // namespace stepwise::infra
