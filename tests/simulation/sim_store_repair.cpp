// The invariants of repairs (a retry with an input patch or a from_step, a
// skip), checked on every event and every write the store takes.
#include "tests/simulation/sim_store.hpp"

namespace stepwise::sim {

void sim_store::check_repair_event(const event& e) {
  auto& id = e.operation_id;
  if (is_terminal(e.type)) {
    // The run ended: the next one (a retry) may run any step.
    rerun_only_.erase(id);
    skipped_.erase(id);
    return;
  }
  if (e.type == event_type::input_patched)
    ++repairs_[0];
  if (e.type == event_type::steps_reset) {
    ++repairs_[1];
    std::set<std::string> steps;
    for (auto& s : e.extra.at("steps").as_array())
      steps.insert(std::string{s.as_string()});
    // The named step must be the first one reset.
    log_.check_lazy(!steps.empty() && steps.count(std::string{e.extra.at("from_step").as_string()}),
                    [&] { return "steps_reset of " + id + " does not reset its from_step"; });
    for (auto& s : steps)
      skipped_[id].erase(s);
    rerun_only_[id] = std::move(steps);
    return;
  }
  if (e.type == event_type::step_skipped && e.extra.contains("reason")) {
    ++repairs_[2];
    skipped_[id].insert(e.step);
    return;
  }
  if (e.type != event_type::step_started)
    return;
  if (auto i = rerun_only_.find(id); i != rerun_only_.end())
    log_.check_lazy(i->second.count(e.step) > 0, [&] {
      return "step " + e.step + " of " + id + " started (seq " + std::to_string(e.seq)
             + ") in a run that a retry began after it (from_step)";
    });
  if (auto i = skipped_.find(id); i != skipped_.end())
    log_.check_lazy(i->second.count(e.step) == 0, [&] {
      return "step " + e.step + " of " + id + " started (seq " + std::to_string(e.seq)
             + ") after a client skipped it in this run";
    });
}

void sim_store::check_version(const operation& op) {
  auto first = versions_.emplace(op.id, op.workflow_version).first->second;
  log_.check_lazy(first == op.workflow_version, [&] {
    return "operation " + op.id + " went from workflow version " + std::to_string(first) + " to "
           + std::to_string(op.workflow_version);
  });
}

} // namespace stepwise::sim
