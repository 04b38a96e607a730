#include "tests/simulation/invariants.hpp"

#include <caf/stateful_actor.hpp>

#include <set>
#include <vector>

#include "actors/operation_actor.hpp"
#include "engine/children.hpp"
#include "tests/simulation/sim_cluster.hpp"

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

namespace {

// The create window: never more creates written at once than it allows,
// and no start waits while it has room (every ack lets one in).
void check_window(sim_log& log, dispatcher_state& d) {
  if (!d.rt)
    return; // the dispatcher has not begun yet
  auto window = d.rt->cfg.create_window;
  auto held = d.creates.size();
  log.check_lazy(window == 0 || held <= window, [&] {
    return std::to_string(held) + " creates written or replayed at once, window "
           + std::to_string(window);
  });
  log.check_lazy(d.waiting_starts.empty() || (window != 0 && held >= window), [&] {
    return std::to_string(d.waiting_starts.size()) + " starts wait while the window ("
           + std::to_string(window) + ") holds " + std::to_string(held);
  });
}

} // namespace

void check_actors(sim_log& log, sim_world& world) {
  check_window(log, world.dispatcher());
  for (auto& [id, a] : world.dispatcher().live) {
    auto* st = state_of(a);
    if (!st)
      continue;
    // Writing its create (or reading what took its key): nothing is
    // committed of it yet, and the window counts it.
    if (st->creating) {
      log.check_lazy(
        st->commit.durable == nullptr && world.dispatcher().creates.count(st->creating->tag),
        [&, id = id] { return "operation " + id + " creates itself unknown to the window"; });
      continue;
    }
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

std::set<std::string> running_attempts(sim_world& world) {
  std::set<std::string> out;
  for (auto& [id, a] : world.dispatcher().live) {
    auto* st = state_of(a);
    if (!st || !st->work.attempt_running() || st->op.state == op_state::compensating)
      continue;
    auto idx = st->op.cursor();
    if (idx < st->op.steps.size())
      out.insert(id + "/" + st->op.steps[idx].name + "/" + std::to_string(st->work.attempt()));
  }
  return out;
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
    log.check_lazy(!parked || near_deadline, [&, id = id, actor_id = a.id()] {
      return "operation " + id + " is " + std::string{to_string(op.state)}
             + (op.admission == admission::queued ? " (queued)" : "") + " and holds an actor (#"
             + std::to_string(actor_id) + ")";
    });
  }
}

void check_waits(sim_log& log, sim_world& world) {
  auto now = world.clock().now();
  for (auto& [id, w] : world.dispatcher().waiters)
    log.check_lazy(w.tag == 0 || w.due > now, [&, id = id, due = w.due] {
      return "a wait for " + id + " is still open " + std::to_string((now - due).count())
             + " us after its time";
    });
}

void children_watchdog::check(sim_log& log, sim_world& world, sim_store& store) {
  if (world.dispatcher().recovering)
    return;
  auto now = world.clock().now();
  auto& defs = world.dispatcher().rt->workflows;
  std::vector<operation> ops;
  std::map<std::string, std::vector<child_summary>> kids;
  for (auto& id : store.ids()) {
    auto op = store.peek(id);
    if (!op)
      continue;
    if (auto c = summary_of(*op))
      kids[op->parent_id].push_back(std::move(*c));
    ops.push_back(std::move(*op));
  }
  std::set<std::string> decided;
  for (auto& op : ops) {
    auto wf = defs.find(op.workflow, op.workflow_version);
    auto* w = wf ? progress::awaiting_children(op, *wf) : nullptr;
    if (!w)
      continue;
    auto verdict = judge(*w, watched_children(*w, op, kids[op.id]));
    if (verdict.what == children_verdict::kind::waiting)
      continue;
    decided.insert(op.id);
    auto since = since_.emplace(op.id, now).first->second;
    log.check_lazy(now - since <= std::chrono::minutes(1), [&] {
      return "operation " + op.id + " still waits for its children, though "
             + (verdict.what == children_verdict::kind::met ? std::string{"enough ended"}
                                                            : "the wait failed: " + verdict.error)
             + " "
             + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - since).count())
             + " s ago";
    });
  }
  for (auto i = since_.begin(); i != since_.end();)
    i = decided.count(i->first) ? std::next(i) : since_.erase(i);
}

void check_lease(sim_log& log, sim_world& world, sim_store& store) {
  if (!store.leasing)
    return;
  auto owner = world.lease_owner();
  log.check_lazy(store.lease_live(owner), [&] {
    return "a step began while the lease of " + (owner.empty() ? std::string{"(none)"} : owner)
           + " had expired or was ended";
  });
}

} // namespace stepwise::sim

namespace stepwise::sim {

void check_owners(sim_log& log, sim_cluster& cluster, sim_store& store) {
  if (!store.leasing)
    return;
  // Per operation: the process whose actor is current with the store.
  std::map<std::string, size_t> driver;
  for (size_t i = 0; i < cluster.size(); ++i) {
    auto& p = cluster.procs[i];
    if (!p.world || !store.lease_live(p.world->lease_owner()))
      continue;
    for (auto& [id, a] : p.world->dispatcher().live) {
      auto* st = state_of(a);
      if (!st || st->creating || !st->commit.durable)
        continue;
      auto stored = store.peek(id);
      if (!stored || is_terminal(stored->state) || stored->revision != st->commit.durable->revision)
        continue;
      auto [it, fresh] = driver.emplace(id, i);
      log.check_lazy(fresh, [&, id = id, other = it->second, rev = stored->revision] {
        return "operation " + id + " (revision " + std::to_string(rev) + ") is driven by processes "
               + std::to_string(other) + " and " + std::to_string(i)
               + " at once, both with live leases";
      });
    }
  }
}

} // namespace stepwise::sim
