#include "engine/workflow.hpp"

#include <algorithm>
#include <exception>
#include <set>

#include "engine/errc.hpp"

namespace stepwise {

workflow::workflow(std::string name, int32_t version) : name_(std::move(name)), version_(version) {
  // nop
}

workflow& workflow::step(int32_t weight, step_def s) {
  s.weight = weight;
  auto pos = std::upper_bound(steps_.begin(), steps_.end(), weight,
                              [](int32_t w, const step_def& x) { return w < x.weight; });
  steps_.insert(pos, std::move(s));
  return *this;
}

workflow& workflow::secret(std::string json_pointer) {
  secrets_.emplace_back(std::move(json_pointer));
  return *this;
}

namespace {

// The value at `ptr` in `input` as text (a string as it is, any other
// value as JSON), or "" when there is none.
std::string text_at(const boost::json::object& input, const std::string& ptr) {
  boost::json::error_code ec;
  boost::json::value whole = input; // find_pointer wants a value
  auto* v = whole.find_pointer(ptr, ec);
  if (!v || v->is_null())
    return {};
  return v->is_string() ? std::string{v->as_string().c_str(), v->as_string().size()}
                        : boost::json::serialize(*v);
}

} // namespace

workflow& workflow::serialize_by(std::string json_pointer) {
  auto ptr = json_pointer;
  key_ = [ptr](const boost::json::object& input) { return text_at(input, ptr); };
  key_what_ = std::move(json_pointer);
  return *this;
}

workflow& workflow::serialize_by(key_fn fn, std::string what) {
  key_ = std::move(fn);
  key_what_ = std::move(what);
  return *this;
}

workflow& workflow::label(std::string label_key, std::string json_pointer) {
  labels_.emplace_back(std::move(label_key), std::move(json_pointer));
  return *this;
}

std::map<std::string, std::string> workflow::labels_of(const boost::json::object& input) const {
  std::map<std::string, std::string> out;
  for (auto& [k, ptr] : labels_)
    if (auto v = text_at(input, ptr); !v.empty())
      out[k] = v.size() > 256 ? v.substr(0, 256) : std::move(v);
  return out;
}

workflow& workflow::limit(size_t n) {
  limit_ = n;
  return *this;
}

caf::expected<std::string> workflow::key_of(const boost::json::object& input) const {
  if (!key_)
    return std::string{};
  std::string key;
  try {
    key = key_(input);
  } catch (const std::exception& e) {
    return make_error(errc::invalid_argument,
                      "workflow '" + name_
                        + "': computing the serialization key failed: " + e.what());
  }
  if (key.empty() && !key_what_.empty() && key_what_.front() == '/')
    return make_error(errc::invalid_argument, "workflow '" + name_
                                                + "' runs one operation per key at a time: "
                                                  "the input needs a value at '"
                                                + key_what_ + "'");
  return key;
}

namespace {

/// Returns what is wrong with the children wait of `s`, if it is one;
/// `earlier` holds the names of the steps before it and its own.
std::optional<std::string> check_children_wait(const step_def& s,
                                               const std::set<std::string>& earlier) {
  auto& w = s.wait->children;
  if (!w)
    return std::nullopt;
  if (is_watched(*s.wait))
    return "step '" + s.name + "' waits for children and for a watched task";
  if (w->quorum == children_quorum::at_least && w->n == 0)
    return "step '" + s.name + "' waits for 0 children";
  if (!w->of_step.empty() && (w->of_step == s.name || !earlier.count(w->of_step)))
    return "step '" + s.name + "' waits for the children of '" + w->of_step
           + "', which is not a step before it";
  return std::nullopt;
}

/// Returns what is wrong with the task queue of `s`, if it has one.
std::optional<std::string> check_task(const step_def& s) {
  auto& q = s.wait->queue;
  if (!q)
    return std::nullopt;
  if (s.wait->watcher)
    return "step '" + s.name + "' has a task queue and a watcher";
  if (q->queue.empty())
    return "step '" + s.name + "' has an empty task queue name";
  if ((q->start_timeout && q->start_timeout->count() <= 0)
      || (q->heartbeat_timeout && q->heartbeat_timeout->count() <= 0))
    return "step '" + s.name + "' has a task timeout <= 0";
  return std::nullopt;
}

} // namespace

caf::expected<void> workflow::validate() const {
  auto bad = [this](std::string what) {
    return make_error(errc::invalid_definition,
                      "workflow '" + name_ + "' v" + std::to_string(version_) + ": " + what);
  };
  if (name_.empty())
    return make_error(errc::invalid_definition, "workflow name is empty");
  if (version_ < 1)
    return bad("version must be at least 1");
  if (steps_.empty())
    return bad("has no steps");
  std::set<std::string> names;
  for (auto& s : steps_) {
    if (s.name.empty())
      return bad("a step has an empty name");
    if (!names.insert(s.name).second)
      return bad("step name '" + s.name + "' is used twice");
    if (s.weight < 1)
      return bad("step '" + s.name + "' has weight < 1");
    int bodies = (s.run ? 1 : 0) + (s.start ? 1 : 0) + (s.actor ? 1 : 0) + (s.sleep ? 1 : 0)
                 + (s.wait ? 1 : 0);
    if (bodies == 0)
      return bad("step '" + s.name + "' has no run function");
    if (bodies > 1)
      return bad("step '" + s.name + "' has more than one body (run, start, actor, sleep, wait)");
    if (s.produces_transient && !s.run && !s.start)
      return bad("step '" + s.name
                 + "' produces transient values but is not a blocking or asynchronous step");
    if (s.runs_inline && !s.run)
      return bad("step '" + s.name + "' runs inline but has no blocking body");
    if (s.compensate && s.compensate_async)
      return bad("step '" + s.name + "' has two compensations");
    if (s.wait) {
      if (s.wait->signal.empty() && !is_watched(*s.wait) && !s.wait->children)
        return bad("step '" + s.name + "' waits for neither a signal nor a task");
      if (auto err = check_task(s))
        return bad(*err);
      if (auto err = check_children_wait(s, names))
        return bad(*err);
      if (s.wait->watcher && !s.wait->task)
        return bad("step '" + s.name + "' has a watcher but no task to describe to it");
      if (s.wait->timeout && s.wait->timeout->count() <= 0)
        return bad("step '" + s.name + "' has a wait timeout <= 0");
      // A task did work elsewhere that may need undoing; other waits did
      // none.
      if ((s.compensate || s.compensate_async) && !s.wait->queue)
        return bad("step '" + s.name + "' is a wait: it has nothing to compensate");
    }
    if (s.sleep && s.sleep->count() < 0)
      return bad("step '" + s.name + "' sleeps for a negative time");
    if (s.timeout && s.timeout->count() <= 0)
      return bad("step '" + s.name + "' has a timeout <= 0");
    if (s.policy
        && (s.policy->multiplier < 1.0 || s.policy->jitter < 0.0 || s.policy->jitter > 1.0
            || s.policy->max_attempts < 0))
      return bad("step '" + s.name + "' has an invalid retry policy");
  }
  for (auto& p : secrets_)
    if (p.empty() || p[0] != '/')
      return bad("secret path '" + p + "' is not a JSON pointer");
  return caf::unit;
}

int32_t workflow::index_of(const std::string& name) const {
  for (size_t i = 0; i < steps_.size(); ++i)
    if (steps_[i].name == name)
      return static_cast<int32_t>(i);
  return -1;
}

} // namespace stepwise
