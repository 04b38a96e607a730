#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <boost/json/object.hpp>

#include "engine/task_spec.hpp"

namespace stepwise {

/// Returns the task the broker is told of (a `watch_request`'s `task`,
/// actors/task_broker.hpp reads it back): the queue, the workflow, the
/// operation's input and data, its timeouts, and when the attempt ends
/// whatever the worker does (`deadline`, none: never), in ms.
inline boost::json::object describe_task(const task_spec& spec, const std::string& workflow,
                                         boost::json::object input, boost::json::object data,
                                         std::optional<time_point> deadline = std::nullopt) {
  auto ms = [](duration d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  };
  boost::json::object out{{"queue", spec.queue},
                          {"workflow", workflow},
                          {"input", std::move(input)},
                          {"data", std::move(data)}};
  if (deadline)
    out["deadline_ms"] = ms(deadline->time_since_epoch());
  if (spec.start_timeout)
    out["start_timeout_ms"] = ms(*spec.start_timeout);
  if (spec.heartbeat_timeout)
    out["heartbeat_timeout_ms"] = ms(*spec.heartbeat_timeout);
  return out;
}

} // namespace stepwise
