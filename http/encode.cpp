#include "http/encode.hpp"

#include "engine/labels.hpp"

#include <chrono>

#include "engine/event_json.hpp"
#include "engine/json_text.hpp"

namespace stepwise::http {

namespace {

int64_t millis(duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
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

boost::json::object to_json(const operation& op) {
  return boost::json::parse(operation_text(op)).as_object();
}

boost::json::object to_json(const event& e) {
  return event_json(e);
}

boost::json::object to_json(const workflow& wf) {
  boost::json::object out;
  out["name"] = wf.name();
  out["version"] = wf.version();
  out["source"] = wf.definition() ? "data" : "built_in";
  out["definition"] =
    wf.definition() ? boost::json::value(*wf.definition()) : boost::json::value(nullptr);
  boost::json::array secrets;
  for (auto& p : wf.secrets())
    secrets.emplace_back(p);
  out["secret_paths"] = std::move(secrets);
  boost::json::array steps;
  for (auto& s : wf.steps()) {
    boost::json::object step;
    step["name"] = s.name;
    step["weight"] = s.weight;
    step["kind"] = s.sleep                   ? "sleep"
                   : s.wait && s.wait->queue ? "task"
                   : s.wait                  ? "wait"
                   : s.start                 ? "async"
                   : s.actor                 ? "actor"
                                             : "run";
    step["signal"] = s.wait && !s.wait->signal.empty() ? boost::json::value(s.wait->signal)
                                                       : boost::json::value(nullptr);
    step["queue"] = s.wait && s.wait->queue ? boost::json::value(s.wait->queue->queue)
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

// -- operations as text ------------------------------------------------------

namespace {

/// Writes `{"k":v,...}` members: each `key` call starts one.
class members {
public:
  explicit members(std::string& out) : out_(out) {
    out_ += '{';
  }

  std::string& key(std::string_view k) {
    if (!first_)
      out_ += ',';
    first_ = false;
    json_text::append_string(out_, k);
    out_ += ':';
    return out_;
  }

  void text(std::string_view k, std::string_view v) {
    json_text::append_string(key(k), v);
  }

  void text_or_null(std::string_view k, const std::string& v) {
    if (v.empty())
      key(k) += "null";
    else
      text(k, v);
  }

  void time(std::string_view k, time_point t) {
    text(k, format_time(t));
  }

  void time_or_null(std::string_view k, const std::optional<time_point>& t) {
    if (t)
      time(k, *t);
    else
      key(k) += "null";
  }

  template <class Int>
  void integer(std::string_view k, Int x) {
    json_text::append_int(key(k), x);
  }

  void boolean(std::string_view k, bool x) {
    key(k) += x ? "true" : "false";
  }

  void close() {
    out_ += '}';
  }

private:
  std::string& out_;
  bool first_ = true;
};

void append_step(std::string& out, const step_record& s) {
  members m{out};
  m.text("name", s.name);
  m.integer("weight", s.weight);
  m.text("state", to_string(s.state));
  m.integer("attempts", s.attempts);
  m.time_or_null("first_attempt_at", s.first_attempt_at);
  m.time_or_null("last_attempt_at", s.last_attempt_at);
  m.time_or_null("next_attempt_at", s.next_attempt_at);
  m.integer("duration_ms", s.duration_ms);
  m.text_or_null("last_error", s.last_error);
  // Sagas only: null until the step's compensation starts.
  if (s.compensation == step_state::pending)
    m.key("compensation") += "null";
  else
    m.text("compensation", to_string(s.compensation));
  m.close();
}

void append_signal(std::string& out, const signal_record& sig) {
  members m{out};
  m.text("name", sig.name);
  m.text("signal_id", sig.id);
  m.time("received_at", sig.received_at);
  m.text_or_null("consumed_by", sig.consumed_by);
  m.close();
}

template <class T, class Append>
void append_array(std::string& out, const std::vector<T>& xs, Append append) {
  out += '[';
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i > 0)
      out += ',';
    append(out, xs[i]);
  }
  out += ']';
}

} // namespace

void append_operation_json(std::string& out, const operation& op,
                           const boost::json::object* children) {
  members m{out};
  m.text("id", op.id);
  m.text("workflow", op.workflow);
  m.integer("version", op.workflow_version);
  m.text("state", to_string(op.state));
  if (op.input)
    json_text::append_object(m.key("input"), *op.input);
  else
    m.key("input") += "{}";
  json_text::append_object(m.key("data"), op.data);
  m.text_or_null("error", op.error);
  m.time("created_at", op.created_at);
  m.time("updated_at", op.updated_at);
  m.time_or_null("deadline", op.deadline);
  append_array(m.key("steps"), op.steps, append_step);
  append_array(m.key("signals"), op.signals, append_signal);
  m.text_or_null("key", op.key);
  m.text_or_null("blocked_by", op.blocked_by);
  m.boolean("pause_requested", op.pause_requested);
  m.text_or_null("parent_id", op.parent_id);
  m.text_or_null("schedule_id", op.schedule_id);
  m.text_or_null("idempotency_key", op.idempotency_key);
  json_text::append_object(m.key("labels"), labels_json(op.labels));
  // An ended operation keeps the column, but nothing drives it any more.
  static const std::string nobody;
  m.text_or_null("owner", is_terminal(op.state) ? nobody : op.owner);
  if (children)
    json_text::append_object(m.key("children"), *children);
  m.close();
}

std::string operation_text(const operation& op, const boost::json::object* children) {
  std::string out;
  out.reserve(512 + 256 * op.steps.size());
  append_operation_json(out, op, children);
  return out;
}

} // namespace stepwise::http
