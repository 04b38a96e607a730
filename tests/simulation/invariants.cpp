#include "tests/simulation/invariants.hpp"

#include <caf/stateful_actor.hpp>

#include "actors/operation_actor.hpp"

namespace stepwise::sim {

namespace {

/// Returns the state of the live operation actor `a`, or null when it has
/// not begun yet (its first message makes its behavior), ended, or stands
/// in for an unregistered version.
operation_state* state_of(const operation_actor& a) {
  auto* ptr = caf::actor_cast<caf::abstract_actor*>(a);
  if (!ptr || !ptr->getf(caf::abstract_actor::is_initialized_flag)
      || ptr->getf(caf::abstract_actor::is_terminated_flag))
    return nullptr;
  auto* op = dynamic_cast<operation_actor::stateful_base<operation_state>*>(ptr);
  return op ? &op->state : nullptr;
}

} // namespace

void check_actors(sim_log& log, sim_world& world) {
  for (auto& [id, a] : world.dispatcher().live) {
    auto* st = state_of(a);
    if (!st)
      continue;
    log.check_lazy(st->commit.durable != nullptr,
                   [&, id = id] { return "operation " + id + " has no committed state"; });
    if (!st->commit.durable)
      continue;
    // One commit at a time, one revision each; the working copy is the
    // one being written, or the durable one.
    auto stored = st->commit.durable->revision;
    auto writing = st->commit.in_flight ? st->commit.in_flight->revision : stored;
    log.check_lazy(writing == stored || writing == stored + 1, [&, id = id] {
      return "operation " + id + " writes revision " + std::to_string(writing) + " over "
             + std::to_string(stored);
    });
    log.check_lazy(st->op.revision == writing, [&, id = id] {
      return "operation " + id + " works on revision " + std::to_string(st->op.revision)
             + ", not the one written (" + std::to_string(writing) + ")";
    });
  }
}

void check_parked(sim_log& log, sim_world& world, duration wake_lead) {
  // Recovery holds the actors' passivation requests in the dispatcher's
  // mailbox until its last page is read.
  if (world.dispatcher().recovering)
    return;
  auto now = world.clock().now();
  for (auto& [id, a] : world.dispatcher().live) {
    auto* st = state_of(a);
    if (!st)
      continue;
    auto& op = st->op;
    bool parked = op.state == op_state::paused
                  || (op.state == op_state::pending && op.admission == admission::queued);
    bool near_deadline = op.deadline && *op.deadline - now <= wake_lead;
    log.check_lazy(!parked || near_deadline, [&, id = id] {
      return "operation " + id + " is " + std::string{to_string(op.state)}
             + (op.admission == admission::queued ? " (queued)" : "") + " and holds an actor (#"
             + std::to_string(a.id()) + ")";
    });
  }
}

} // namespace stepwise::sim
