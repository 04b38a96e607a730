// The transitions of child operations: the ids of the children a step
// started, and the end of a wait for children.
#include <string>

#include "engine/progress.hpp"
#include "engine/progress_detail.hpp"

namespace stepwise::progress {

namespace {

/// Returns `obj[key]` as an object, making it one if it is not.
boost::json::object& object_at(boost::json::object& obj, const std::string& key) {
  auto& v = obj[key];
  if (!v.is_object())
    v = boost::json::object{};
  return v.as_object();
}

} // namespace

const children_wait* awaiting_children(const operation& op, const workflow& wf) {
  auto idx = op.cursor();
  if (op.state != op_state::waiting || idx >= op.steps.size()
      || op.steps[idx].state != step_state::running)
    return nullptr;
  auto& def = wf.steps()[idx];
  return def.wait && def.wait->children ? &*def.wait->children : nullptr;
}

void note_children(operation& op, const std::string& step,
                   const std::vector<std::pair<std::string, std::string>>& ids) {
  if (ids.empty())
    return;
  auto& of_step = object_at(object_at(op.data, "children"), step);
  for (auto& [key, id] : ids)
    of_step[key] = id;
}

next_action end_children_wait(operation& op, const workflow& wf,
                              const std::vector<child_summary>& watched,
                              const children_verdict& verdict, time_point now, double unit_random,
                              std::vector<event>& out) {
  auto idx = op.cursor();
  auto& rec = op.steps[idx];
  auto& results = object_at(op.data, "children_results");
  for (auto& kv : children_results(watched))
    results[kv.key()] = kv.value();
  op.state = op_state::in_progress;
  op.wake_at.reset();
  auto took = now - rec.last_attempt_at.value_or(now);
  auto result =
    verdict.what == children_verdict::kind::met ? done() : fail("the children: " + verdict.error);
  return apply_result(op, wf, idx, result, false, took, now, unit_random, out);
}

} // namespace stepwise::progress
