#include "actors/runtime.hpp"

#include <caf/send.hpp>

#include "engine/errc.hpp"
#include "engine/redact.hpp"
#include "engine/sealed_json.hpp"

namespace stepwise {

namespace {

operation masked(const operation& op, const std::vector<std::string>& secrets) {
  // Secret paths of the definition, and any sealed value (in data: kept
  // with `keep_secret`).
  bool mask_input = op.input && (!secrets.empty() || holds_sealed(*op.input));
  bool mask_data = holds_sealed(op.data);
  if (!mask_input && !mask_data)
    return op;
  operation out = op;
  if (mask_input) {
    auto input = mask_paths(*op.input, secrets);
    mask_sealed(input);
    out.input = std::make_shared<const boost::json::object>(std::move(input));
  }
  if (mask_data)
    mask_sealed(out.data);
  return out;
}

/// Returns `op` with what the store keeps for the engine shown as a caller
/// reads it: `blocked_by` only while the operation is queued (a round
/// wrote it; it stays in the row after), and one rule for every wait: the
/// step an operation waits on shows `waiting`, a sleep or retry as much as
/// a wait step (whose attempt is stored as `running`, its timer being the
/// wait's timeout).
operation shown(operation op) {
  if (!(op.state == op_state::pending && op.admission == admission::queued))
    op.blocked_by.clear();
  if (op.state == op_state::waiting) {
    auto idx = op.cursor();
    if (idx < op.steps.size() && op.steps[idx].state == step_state::running)
      op.steps[idx].state = step_state::waiting;
  }
  return op;
}

} // namespace

operation runtime::present(const operation& op) const {
  if (auto wf = workflows.find(op.workflow, op.workflow_version))
    return shown(masked(op, wf->secrets()));
  // A version no longer registered: the secret paths of every registered
  // version of its name (the input's shape rarely changes between versions,
  // and a value is better masked once too often than shown).
  std::vector<std::string> secrets;
  for (auto v : workflows.versions(op.workflow))
    for (auto& p : workflows.find(op.workflow, v)->secrets())
      secrets.push_back(p);
  return shown(masked(op, secrets));
}

void runtime::stop() {
  if (notices)
    notices->stop();
  if (step_pool)
    step_pool->stop();
  if (writer)
    writer->stop();
  // A due step handed to the clock holds its context, which holds the clock.
  if (clk)
    clk->drop_calls();
}

void runtime::exit_parts(caf::exit_reason why) {
  if (schedules)
    caf::anon_send_exit(schedules, why);
  if (retention)
    caf::anon_send_exit(retention, why);
  if (fanout)
    caf::anon_send_exit(fanout, why);
  if (children)
    caf::anon_send_exit(children, why);
  {
    std::lock_guard<std::mutex> guard{admission_mtx};
    if (admission)
      caf::anon_send_exit(admission, why);
  }
  if (tasks)
    caf::anon_send_exit(tasks, why);
  for (auto& r : readers)
    caf::anon_send_exit(r, why);
}

bool runtime::admit_workflow(const workflow& wf) {
  if (!wf.serialized() && wf.max_in_progress() == 0)
    return false;
  std::lock_guard<std::mutex> guard{admission_mtx};
  auto now = admitted();
  if (now->count(wf.name()) > 0)
    return false; // an earlier version took part: its key and limit stay
  auto next = std::make_shared<std::set<std::string>>(*now);
  next->insert(wf.name());
  if (wf.max_in_progress() > 0 && cfg.limits.count(wf.name()) == 0)
    limits[wf.name()] = wf.max_in_progress();
  std::atomic_store(&admitted_workflows, std::shared_ptr<const std::set<std::string>>{next});
  writer->enable_admission(limits);
  return true;
}

caf::error draining_refusal() {
  return make_error(errc::shutting_down,
                    "the server is shutting down (draining): it takes no new operations; "
                    "start this one on another server, or again once it is back");
}

runtime::~runtime() {
  stop();
}

} // namespace stepwise
