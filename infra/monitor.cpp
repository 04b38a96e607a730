#include "infra/monitor.hpp"

#include <algorithm>
#include <cmath>

#include "engine/event.hpp"
#include "infra/task_json.hpp"

namespace stepwise::infra {

namespace {

using namespace std::chrono_literals;

result<deployment_location> location_from_input(step_context& ctx) {
  if (auto loc = location_from_json(ctx.input().if_contains("deployment_location")))
    return *loc;
  return error{error_kind::infrastructure_error,
               "the input has no deployment_location with a name"};
}

/// Returns the time of the first poll, recording it on the first attempt.
/// The data is checkpointed with every attempt's result, retries included.
time_point first_poll(step_context& ctx) {
  auto& monitors = ctx.data()["monitors"];
  if (!monitors.is_object())
    monitors = boost::json::object{};
  auto& mine = monitors.get_object()[ctx.step_name()];
  if (mine.is_object())
    if (auto at = mine.get_object().if_contains("first_poll_at");
        at != nullptr && at->is_string())
      if (auto t = parse_time(at->get_string()))
        return *t;
  auto now = ctx.now();
  mine = boost::json::object{{"first_poll_at", format_time(now)}};
  return now;
}

outcome give_up(step_context& ctx, const accepted& ids, std::string why) {
  ctx.emit(event_type::infrastructure_task_completed,
           internal_error_event(ids.infrastructure_id, ids.request_id, why));
  return fail("INTERNAL_ERROR: " + why);
}

class monitor {
public:
  monitor(std::shared_ptr<driver> drv, monitor_options opts, monitor_source src)
    : drv_(std::move(drv)), opts_(opts), src_(std::move(src)) {
    if (!src_.location)
      src_.location = location_from_input;
  }

  outcome operator()(step_context& ctx) const {
    auto ids = src_.task_key.empty()
                 ? ids_from_json(ctx.input())
                 : ids_from_json(ctx.data().if_contains(src_.task_key));
    if (!ids)
      return fail("INTERNAL_ERROR: no infrastructure_id and request_id to monitor");
    auto started = first_poll(ctx);
    auto loc = src_.location(ctx);
    if (auto err = std::get_if<error>(&loc))
      return on_error(ctx, *ids, *err, started);
    auto res = drv_->get_task(ids->infrastructure_id, ids->request_id,
                              std::get<deployment_location>(loc));
    if (auto err = std::get_if<error>(&res))
      return on_error(ctx, *ids, *err, started);
    auto& t = std::get<task>(res);
    switch (t.status) {
      case task_status::complete:
        if (!src_.outputs_key.empty())
          ctx.data()[src_.outputs_key] = t.outputs;
        ctx.emit(event_type::infrastructure_task_completed, task_event(t));
        return done();
      case task_status::failed: {
        if (!t.failure)
          t.failure = failure_details{failure_code::internal_error,
                                      "the task failed without details"};
        auto msg = std::string(to_string(t.failure->code)) + ": " + t.failure->description;
        ctx.emit(event_type::infrastructure_task_completed, task_event(t));
        return fail(std::move(msg));
      }
      case task_status::in_progress:
        break;
    }
    return poll_again(ctx, *ids, started, "task " + ids->request_id + " is IN_PROGRESS");
  }

private:
  outcome on_error(step_context& ctx, const accepted& ids, const error& err,
                   time_point started) const {
    if (err.kind == error_kind::temporary || err.kind == error_kind::unreachable_location)
      return poll_again(ctx, ids, started,
                        std::string(to_string(err.kind)) + ": " + err.message);
    return give_up(ctx, ids, std::string(to_string(err.kind)) + ": " + err.message);
  }

  outcome poll_again(step_context& ctx, const accepted& ids, time_point started,
                     std::string why) const {
    auto end = started + opts_.deadline;
    auto now = ctx.now();
    if (now >= end)
      return give_up(ctx, ids, "monitor deadline exceeded (" + why + ")");
    // The last poll happens at the deadline rather than after it.
    auto delay = std::min(monitor_backoff(opts_, ctx.attempt()), end - now);
    return retry_after(std::max(delay, duration{1ms}), std::move(why));
  }

  std::shared_ptr<driver> drv_;
  monitor_options opts_;
  monitor_source src_;
};

} // namespace

duration monitor_backoff(const monitor_options& opts, int32_t attempt) {
  auto d = static_cast<double>(opts.initial_backoff.count())
           * std::pow(opts.multiplier, std::max(0, attempt - 1));
  auto cap = static_cast<double>(opts.max_backoff.count());
  return duration{static_cast<int64_t>(std::min(d, cap))};
}

step_def make_monitor_step(std::string name, std::shared_ptr<driver> drv,
                           monitor_options opts, monitor_source src) {
  return make_step(std::move(name),
                   monitor{std::move(drv), opts, std::move(src)});
}

} // namespace stepwise::infra
