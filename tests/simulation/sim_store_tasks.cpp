// The store's checks of task steps: what workers' answers (sim_tasks.cpp)
// did to the operations of `sim.tasks`.
#include "tests/simulation/sim_store.hpp"

namespace stepwise::sim {

namespace {

bool task_step(const std::string& step) {
  return step == "t1" || step == "t2";
}

} // namespace

void sim_store::check_task_event(const event& e) {
  if (!task_step(e.step))
    return;
  if (e.type != event_type::step_succeeded && e.type != event_type::step_failed
      && e.type != event_type::step_retry_scheduled)
    return;
  auto key = e.operation_id + "/" + std::to_string(budgets_[e.operation_id]) + "/" + e.step + "/"
             + std::to_string(e.attempt);
  // An attempt ends once: it succeeded, or failed as its worker said, or
  // a retry was scheduled. A failure for another reason (the operation's
  // deadline) may follow a scheduled retry of the same attempt.
  bool ends =
    e.type != event_type::step_failed || e.error.find(" by attempt ") != std::string::npos;
  bool first = ends ? task_outcomes_.insert(key).second : true;
  log_.check_lazy(first, [&] {
    return "a second outcome (" + std::string{to_string(e.type)} + ", seq " + std::to_string(e.seq)
           + ") of attempt " + std::to_string(e.attempt) + " of task step " + e.step + " of "
           + e.operation_id;
  });
  // A worker's failure names the attempt it was for.
  auto at = e.error.find(" by attempt ");
  if (at == std::string::npos)
    return;
  auto by = std::stoi(e.error.substr(at + 12));
  log_.check_lazy(by == e.attempt, [&] {
    return "attempt " + std::to_string(e.attempt) + " of " + e.operation_id + " " + e.step
           + " took a worker's failure of attempt " + std::to_string(by) + ": " + e.error;
  });
}

void sim_store::check_task_data(const operation& op) {
  if (op.workflow != "sim.tasks")
    return;
  for (auto& rec : op.steps) {
    if (!task_step(rec.name) || rec.state != step_state::succeeded)
      continue;
    auto* by = op.data.if_contains("by_" + rec.name);
    log_.check_lazy(by && by->is_int64() && by->as_int64() == rec.attempts, [&] {
      return "step " + rec.name + " of " + op.id + " succeeded at attempt "
             + std::to_string(rec.attempts) + " with the answer for "
             + (by ? boost::json::serialize(*by) : std::string{"no attempt"});
    });
  }
}

} // namespace stepwise::sim
