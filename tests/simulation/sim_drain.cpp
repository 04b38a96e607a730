#include "tests/simulation/sim_drain.hpp"

#include "tests/simulation/invariants.hpp"
#include "tests/simulation/sim_world.hpp"

namespace stepwise::sim {

void drain_watch::begin(sim_world& world, sim_store& store) {
  on_ = true;
  started_ = world.stats().steps_started.load();
  running_ = running_attempts(world);
  store.drained = true;
  world.drain();
}

void drain_watch::check_gate(sim_log& log, sim_world& world) {
  if (!on_)
    return;
  auto now = world.stats().steps_started.load();
  log.check_lazy(now == started_, [&] {
    return std::to_string(now - started_) + " attempts began after the drain began";
  });
}

void drain_watch::body(sim_log& log, step_context& ctx) {
  if (!on_ || ctx.stop().stop_requested())
    return;
  auto key = ctx.operation_id() + "/" + ctx.step_name() + "/" + std::to_string(ctx.attempt());
  log.check_lazy(running_.count(key) > 0, [&] {
    return "step " + ctx.step_name() + " of " + ctx.operation_id() + " attempt "
           + std::to_string(ctx.attempt()) + " runs after the drain began, not begun before it";
  });
}

void drain_watch::finished(sim_store& store, const std::string& id, const std::string& step,
                           int32_t attempt) {
  finished_.push_back({id, step, attempt, store.budgets(id)});
}

bool drain_watch::done(sim_world& world) {
  return on_ && world.stats().attempts_running.load() == 0 && world.quiet();
}

void drain_watch::check_written(sim_log& log, sim_store& store) {
  for (auto& a : finished_) {
    auto op = store.peek(a.id);
    // A claim took it over since (a lost lease), or its owner's lease was
    // lost and no claim took it yet: the dropped actor's result is refused
    // (or dropped by the writer), and the operation runs the attempt again.
    if (!op || is_terminal(op->state) || store.budgets(a.id) != a.budget || store.was_claimed(a.id)
        || store.owner_lost(a.id))
      continue;
    for (auto& rec : op->steps)
      log.check_lazy(
        rec.name != a.step || rec.state != step_state::running || rec.attempts != a.attempt, [&] {
          return "attempt " + std::to_string(a.attempt) + " of step " + a.step + " of " + a.id
                 + " (" + op->workflow + ", revision " + std::to_string(op->revision)
                 + ") finished before the drained process stopped, "
                 + "but the store still has it running";
        });
  }
}

void drain_watch::reset() {
  on_ = false;
  running_.clear();
  finished_.clear();
}

} // namespace stepwise::sim
