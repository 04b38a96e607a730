#include "http/encode.hpp"

#include <chrono>

#include "engine/event_json.hpp"

namespace stepwise::http {

namespace {

int64_t millis(duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

boost::json::value string_or_null(const std::string& s) {
  if (s.empty())
    return nullptr;
  return boost::json::value(s);
}

boost::json::object policy_json(const retry_policy& p) {
  boost::json::object out;
  out["initial_interval_ms"] = millis(p.initial_interval);
  out["multiplier"] = p.multiplier;
  out["max_interval_ms"] = millis(p.max_interval);
  out["jitter"] = p.jitter;
  out["max_attempts"] = p.max_attempts;
  out["max_elapsed_ms"] =
    p.max_elapsed ? boost::json::value(millis(*p.max_elapsed)) : boost::json::value(nullptr);
  out["when_exhausted"] = p.pause_when_exhausted ? "pause" : "fail";
  return out;
}

} // namespace

boost::json::value time_or_null(const std::optional<time_point>& t) {
  if (!t)
    return nullptr;
  return boost::json::value(format_time(*t));
}

boost::json::object to_json(const step_record& s) {
  boost::json::object out;
  out["name"] = s.name;
  out["weight"] = s.weight;
  out["state"] = to_string(s.state);
  out["attempts"] = s.attempts;
  out["first_attempt_at"] = time_or_null(s.first_attempt_at);
  out["last_attempt_at"] = time_or_null(s.last_attempt_at);
  out["next_attempt_at"] = time_or_null(s.next_attempt_at);
  out["duration_ms"] = s.duration_ms;
  out["last_error"] = string_or_null(s.last_error);
  // Sagas only: null until the step's compensation starts.
  out["compensation"] = s.compensation == step_state::pending
                          ? boost::json::value(nullptr)
                          : boost::json::value(to_string(s.compensation));
  return out;
}

boost::json::object to_json(const operation& op) {
  boost::json::object out;
  out["id"] = op.id;
  out["workflow"] = op.workflow;
  out["version"] = op.workflow_version;
  out["state"] = to_string(op.state);
  out["input"] = op.input ? *op.input : boost::json::object{};
  out["data"] = op.data;
  out["error"] = string_or_null(op.error);
  out["created_at"] = format_time(op.created_at);
  out["updated_at"] = format_time(op.updated_at);
  out["deadline"] = time_or_null(op.deadline);
  boost::json::array steps;
  steps.reserve(op.steps.size());
  for (auto& s : op.steps)
    steps.emplace_back(to_json(s));
  out["steps"] = std::move(steps);
  boost::json::array signals;
  signals.reserve(op.signals.size());
  for (auto& sig : op.signals)
    signals.emplace_back(boost::json::object{{"name", sig.name},
                                             {"signal_id", sig.id},
                                             {"received_at", format_time(sig.received_at)},
                                             {"consumed_by", string_or_null(sig.consumed_by)}});
  out["signals"] = std::move(signals);
  out["key"] = string_or_null(op.key);
  out["blocked_by"] = string_or_null(op.blocked_by);
  out["pause_requested"] = op.pause_requested;
  out["parent_id"] = string_or_null(op.parent_id);
  out["schedule_id"] = string_or_null(op.schedule_id);
  return out;
}

boost::json::object to_json(const operation& op, boost::json::object children) {
  auto out = to_json(op);
  out["children"] = std::move(children);
  return out;
}

boost::json::object to_json(const event& e) {
  return event_json(e);
}

boost::json::object to_json(const workflow& wf) {
  boost::json::object out;
  out["name"] = wf.name();
  out["version"] = wf.version();
  boost::json::array secrets;
  for (auto& p : wf.secrets())
    secrets.emplace_back(p);
  out["secret_paths"] = std::move(secrets);
  boost::json::array steps;
  for (auto& s : wf.steps()) {
    boost::json::object step;
    step["name"] = s.name;
    step["weight"] = s.weight;
    step["kind"] = s.sleep   ? "sleep"
                   : s.wait  ? "wait"
                   : s.start ? "async"
                   : s.actor ? "actor"
                             : "run";
    step["signal"] = s.wait && !s.wait->signal.empty() ? boost::json::value(s.wait->signal)
                                                       : boost::json::value(nullptr);
    step["sleep_ms"] = s.sleep ? boost::json::value(millis(*s.sleep)) : boost::json::value(nullptr);
    step["timeout_ms"] =
      s.timeout ? boost::json::value(millis(*s.timeout)) : boost::json::value(nullptr);
    step["best_effort"] = s.best_effort;
    step["compensable"] = s.compensate || s.compensate_async;
    step["produces_transient"] = s.produces_transient;
    step["uses_transient"] = s.uses_transient;
    step["conditional"] = s.condition.has_value();
    step["retry_policy"] =
      s.policy ? boost::json::value(policy_json(*s.policy)) : boost::json::value(nullptr);
    steps.emplace_back(std::move(step));
  }
  out["steps"] = std::move(steps);
  return out;
}

} // namespace stepwise::http
