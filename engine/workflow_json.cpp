#include "engine/workflow_json.hpp"

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include <caf/send.hpp>

#include "engine/duration_text.hpp"
#include "engine/errc.hpp"
#include "engine/task_requests.hpp"

namespace stepwise {

namespace {

namespace json = boost::json;

caf::error bad(const std::string& field, const std::string& what) {
  return make_error(errc::invalid_argument, "field '" + field + "' " + what);
}

/// Reads the fields of one JSON object, each error naming its path.
struct fields {
  const json::object& obj;
  std::string at; // "steps[2]." or ""

  std::string path(std::string_view k) const {
    return at + std::string(k);
  }

  caf::error only(std::initializer_list<std::string_view> allowed) const {
    for (auto& kv : obj)
      if (std::find(allowed.begin(), allowed.end(), kv.key()) == allowed.end()) {
        std::string names;
        for (auto& a : allowed)
          names += (names.empty() ? "" : ", ") + std::string(a);
        return bad(path(kv.key()), "is not known here (allowed: " + names + ")");
      }
    return {};
  }

  const json::value* get(std::string_view k) const {
    auto* v = obj.if_contains(k);
    return v == nullptr || v->is_null() ? nullptr : v;
  }

  caf::error text(std::string_view k, std::string& out, bool required) const {
    auto* v = get(k);
    if (v == nullptr)
      return required ? bad(path(k), "is required") : caf::error{};
    if (!v->is_string() || v->get_string().empty())
      return bad(path(k), "must be a non-empty string");
    out = std::string(v->get_string());
    return {};
  }

  caf::error span(std::string_view k, std::optional<duration>& out) const {
    std::string s;
    if (auto err = text(k, s, false); err || s.empty())
      return err;
    auto d = parse_duration_text(s);
    if (!d || d->count() <= 0)
      return bad(path(k),
                 "must be a duration above zero such as 30s, 5m or 1h30m, not '" + s + "'");
    out = *d;
    return {};
  }

  caf::error integer(std::string_view k, int64_t lo, int64_t hi,
                     std::optional<int64_t>& out) const {
    auto* v = get(k);
    if (v == nullptr)
      return {};
    if (!v->is_int64() || v->get_int64() < lo || v->get_int64() > hi)
      return bad(path(k),
                 "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    out = v->get_int64();
    return {};
  }

  caf::error number(std::string_view k, double lo, double hi, double& out) const {
    auto* v = get(k);
    if (v == nullptr)
      return {};
    if (!v->is_number() || v->to_number<double>() < lo || v->to_number<double>() > hi)
      return bad(path(k),
                 "must be a number from " + std::to_string(lo) + " to " + std::to_string(hi));
    out = v->to_number<double>();
    return {};
  }

  caf::error flag(std::string_view k, bool& out) const {
    auto* v = get(k);
    if (v == nullptr)
      return {};
    if (!v->is_bool())
      return bad(path(k), "must be true or false");
    out = v->get_bool();
    return {};
  }
};

caf::error read_retry(const fields& step, std::optional<retry_policy>& out) {
  auto* v = step.get("retry");
  if (v == nullptr)
    return {};
  if (!v->is_object())
    return bad(step.path("retry"), "must be an object");
  fields f{v->get_object(), step.path("retry.")};
  if (auto err = f.only({"max_attempts", "initial", "multiplier", "max", "max_elapsed", "jitter"}))
    return err;
  retry_policy p;
  std::optional<int64_t> attempts;
  std::optional<duration> initial, max, elapsed;
  if (auto err = f.integer("max_attempts", 0, 1000000, attempts))
    return err;
  if (auto err = f.span("initial", initial))
    return err;
  if (auto err = f.span("max", max))
    return err;
  if (auto err = f.span("max_elapsed", elapsed))
    return err;
  if (auto err = f.number("multiplier", 1.0, 100.0, p.multiplier))
    return err;
  if (auto err = f.number("jitter", 0.0, 1.0, p.jitter))
    return err;
  p.max_attempts = static_cast<int32_t>(attempts.value_or(0));
  p.initial_interval = initial.value_or(p.initial_interval);
  p.max_interval = max.value_or(std::max(p.max_interval, p.initial_interval));
  p.max_elapsed = elapsed;
  out = p;
  return {};
}

/// The compensation of a task step: a task named `name` on the step's
/// queue, offered to the task broker for each attempt.
async_step_fn compensation(caf::actor broker, task_spec spec, std::string name,
                           std::string workflow) {
  return [broker, spec, name, workflow](async_call call) {
    caf::anon_send(broker, task_offer_atom::value, task_offer{spec, name, workflow, call});
  };
}

caf::error read_task(const fields& f, const std::string& wf_name, caf::actor broker, step_def& s) {
  if (auto err = f.only({"name", "kind", "weight", "queue", "timeout", "start_timeout",
                         "heartbeat_timeout", "retry", "best_effort", "compensate"}))
    return err;
  task_spec spec;
  if (auto err = f.text("queue", spec.queue, true))
    return err;
  if (auto err = f.span("start_timeout", spec.start_timeout))
    return err;
  if (auto err = f.span("heartbeat_timeout", spec.heartbeat_timeout))
    return err;
  auto name = s.name;
  auto weight = s.weight;
  s = make_task_step(name, spec.queue);
  s.weight = weight;
  s.wait->queue = spec;
  std::string comp;
  if (auto err = f.text("compensate", comp, false))
    return err;
  if (!comp.empty())
    s.compensate_async = compensation(std::move(broker), spec, comp, wf_name);
  return {};
}

caf::error read_step(const json::value& v, size_t i, const std::string& wf_name, caf::actor broker,
                     workflow& wf) {
  auto at = "steps[" + std::to_string(i) + "]";
  if (!v.is_object())
    return bad(at, "must be an object");
  fields f{v.get_object(), at + "."};
  step_def s;
  std::string kind;
  std::optional<int64_t> weight;
  if (auto err = f.text("name", s.name, true))
    return err;
  if (auto err = f.text("kind", kind, true))
    return err;
  if (auto err = f.integer("weight", 1, INT32_MAX, weight))
    return err;
  s.weight = static_cast<int32_t>(weight.value_or(static_cast<int64_t>(i + 1) * 10));
  std::optional<duration> timeout;
  if (kind == "task") {
    if (auto err = read_task(f, wf_name, broker, s))
      return err;
  } else if (kind == "sleep") {
    if (auto err = f.only({"name", "kind", "weight", "duration"}))
      return err;
    std::optional<duration> d;
    if (auto err = f.span("duration", d))
      return err;
    if (!d)
      return bad(f.path("duration"), "is required");
    auto w = s.weight;
    s = make_sleep(s.name, *d);
    s.weight = w;
  } else if (kind == "signal") {
    if (auto err = f.only({"name", "kind", "weight", "signal", "timeout", "retry", "best_effort"}))
      return err;
    std::string sig;
    if (auto err = f.text("signal", sig, true))
      return err;
    auto w = s.weight;
    s = await_signal(s.name, sig);
    s.weight = w;
  } else if (kind == "child") {
    if (auto err = f.only({"name", "kind", "weight", "workflow", "version", "input", "timeout",
                           "retry", "best_effort"}))
      return err;
    std::string child;
    std::optional<int64_t> version;
    if (auto err = f.text("workflow", child, true))
      return err;
    if (auto err = f.integer("version", 1, INT32_MAX, version))
      return err;
    json::object input;
    if (auto* in = f.get("input")) {
      if (!in->is_object())
        return bad(f.path("input"), "must be an object");
      input = in->get_object();
    }
    // Two steps: one starts the child (once: its slot is durable), the
    // next waits for its end.
    auto start = make_step(s.name, [child, version, input](step_context& ctx) {
      if (version)
        ctx.start_child(child, static_cast<int32_t>(*version), input);
      else
        ctx.start_child(child, input);
      return done();
    });
    start.running_inline();
    start.weight = s.weight;
    wf.step(start.weight, std::move(start));
    auto w = s.weight;
    s = await_children(s.name + ":wait", s.name);
    s.weight = w;
  } else {
    return bad(f.path("kind"), "must be task, sleep, signal or child, not '" + kind + "'");
  }
  if (auto err = f.span("timeout", timeout))
    return err;
  if (timeout)
    s.with_wait_timeout(*timeout);
  if (auto err = read_retry(f, s.policy))
    return err;
  if (auto err = f.flag("best_effort", s.best_effort))
    return err;
  wf.step(s.weight, std::move(s));
  return {};
}

} // namespace

caf::expected<workflow> workflow_from_json(const std::string& name, int32_t version,
                                           const json::object& def, caf::actor broker) {
  fields f{def, ""};
  if (auto err = f.only({"steps", "key", "limit", "secrets", "description"}))
    return err;
  auto* steps = f.get("steps");
  if (steps == nullptr || !steps->is_array() || steps->get_array().empty())
    return bad("steps", "must be a non-empty array of steps");
  if (steps->get_array().size() > 200)
    return bad("steps", "may hold at most 200 steps");
  workflow wf(name, version);
  size_t i = 0;
  for (auto& s : steps->get_array())
    if (auto err = read_step(s, i++, name, broker, wf))
      return err;
  std::string key;
  if (auto err = f.text("key", key, false))
    return err;
  if (!key.empty()) {
    if (key.front() != '/')
      return bad("key", "must be a JSON pointer into the input, such as /customer");
    wf.serialize_by(key);
  }
  std::optional<int64_t> limit;
  if (auto err = f.integer("limit", 1, 1000000, limit))
    return err;
  if (limit)
    wf.limit(static_cast<size_t>(*limit));
  if (auto* sec = f.get("secrets")) {
    if (!sec->is_array())
      return bad("secrets", "must be an array of JSON pointers into the input");
    for (auto& p : sec->get_array()) {
      if (!p.is_string() || p.get_string().empty() || p.get_string().front() != '/')
        return bad("secrets", "must hold JSON pointers into the input, such as /password");
      wf.secret(std::string(p.get_string()));
    }
  }
  if (auto* d = f.get("description"); d != nullptr && !d->is_string())
    return bad("description", "must be a string");
  wf.defined_by(def);
  if (auto ok = wf.validate(); !ok)
    return make_error(errc::invalid_argument, message_of(ok.error()));
  return wf;
}

std::string canonical_json(const json::value& v) {
  if (auto* o = v.if_object()) {
    std::vector<const json::key_value_pair*> kvs;
    for (auto& kv : *o)
      kvs.push_back(&kv);
    std::sort(kvs.begin(), kvs.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
    std::string out = "{";
    for (auto* kv : kvs) {
      if (out.size() > 1)
        out += ",";
      out += json::serialize(json::value(kv->key())) + ":" + canonical_json(kv->value());
    }
    return out + "}";
  }
  if (auto* a = v.if_array()) {
    std::string out = "[";
    for (auto& x : *a) {
      if (out.size() > 1)
        out += ",";
      out += canonical_json(x);
    }
    return out + "]";
  }
  return json::serialize(v);
}

} // namespace stepwise
