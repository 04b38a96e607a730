#include "infra/monitor.hpp"

#include <algorithm>
#include <cmath>

#include "engine/errc.hpp"
#include "infra/task_json.hpp"

namespace stepwise::infra {

namespace {

result<deployment_location> location_from_input(step_context& ctx) {
  if (auto loc = location_from_json(ctx.input().if_contains("deployment_location")))
    return *loc;
  return error{error_kind::infrastructure_error,
               "the input has no deployment_location with a name"};
}

} // namespace

duration monitor_backoff(const monitor_options& opts, int32_t attempt) {
  auto d = static_cast<double>(opts.initial_backoff.count())
           * std::pow(opts.multiplier, std::max(0, attempt - 1));
  auto cap = static_cast<double>(opts.max_backoff.count());
  return duration{static_cast<int64_t>(std::min(d, cap))};
}

boost::json::object monitor_task(const accepted& ids, const deployment_location& loc,
                                 const std::string& outputs_key) {
  boost::json::object task = ids_json(ids);
  task["deployment_location"] =
    boost::json::object{{"name", loc.name}, {"type", loc.type}, {"properties", loc.properties}};
  task["outputs_key"] = outputs_key;
  return task;
}

step_def make_monitor_step(std::string name, watcher_actor monitor, monitor_source src) {
  if (!src.location)
    src.location = location_from_input;
  auto describe = [src](step_context& ctx) -> caf::expected<boost::json::object> {
    auto ids = src.task_key.empty() ? ids_from_json(ctx.input())
                                    : ids_from_json(ctx.data().if_contains(src.task_key));
    if (!ids)
      return make_error(errc::invalid_argument, "no infrastructure_id and request_id to monitor");
    auto loc = src.location(ctx);
    if (auto err = std::get_if<error>(&loc))
      return make_error(errc::invalid_argument,
                        "the task's deployment location: " + std::string{to_string(err->kind)}
                          + ": " + err->message);
    return monitor_task(*ids, std::get<deployment_location>(loc), src.outputs_key);
  };
  return await_task(std::move(name), std::move(monitor), std::move(describe));
}

} // namespace stepwise::infra
