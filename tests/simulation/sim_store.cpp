#include "tests/simulation/sim_store.hpp"

#include <algorithm>

#include "engine/child_notice.hpp"
#include "engine/children.hpp"
#include "engine/errc.hpp"
#include "tests/simulation/fingerprint.hpp"

namespace stepwise::sim {

sim_store::sim_store(sim_log& log, std::mt19937_64& rng, admission_limits limits,
                     std::set<std::string> admitted_workflows)
  : log_(log),
    rng_(rng),
    limits_(std::move(limits)),
    admitted_workflows_(std::move(admitted_workflows)) {
  // nop
}

bool sim_store::roll(double p) {
  return p > 0 && std::uniform_real_distribution<double>{0, 1}(rng_) < p;
}

caf::error sim_store::read_fault(const char* what) {
  if (!roll(faults.read_fail))
    return caf::none;
  log_.note(std::string{"store: "} + what + " fails (injected)");
  return make_error(errc::store_failure, std::string{"sim: "} + what + " failed (injected)");
}

void sim_store::forget_in_flight(const std::string& process) {
  if (process.empty()) {
    submitted_.clear();
    return;
  }
  auto prefix = process + "/";
  for (auto i = submitted_.begin(); i != submitted_.end();)
    i = i->compare(0, prefix.size(), prefix) == 0 ? submitted_.erase(i) : std::next(i);
}

void sim_store::restarted(const std::string& process) {
  forget_in_flight(process);
  if (process.empty())
    unsure_.clear();
  else
    unsure_.erase(process);
  // The new process's store reads the admission columns afresh.
  mirror_.invalidate();
}

std::optional<uint64_t> sim_store::held(const std::string& id, int64_t rev) const {
  auto i = history_.find(id);
  if (i == history_.end())
    return std::nullopt;
  auto j = i->second.find(rev);
  if (j == i->second.end())
    return std::nullopt;
  return j->second;
}

std::optional<operation> sim_store::peek(const std::string& id) {
  auto res = inner_.load(id);
  return res ? *res : std::nullopt;
}

int64_t sim_store::budgets(const std::string& id) const {
  auto i = budgets_.find(id);
  return i == budgets_.end() ? 0 : i->second;
}

bool sim_store::run_open(const std::string& id) const {
  auto i = open_.find(id);
  return i != open_.end() && i->second;
}

void sim_store::check_child(const operation& op) {
  if (op.parent_id.empty())
    return;
  auto slot = parse_child_key(op.idempotency_key);
  log_.check_lazy(slot && slot->parent == op.parent_id, [&] {
    return "child " + op.id + " of " + op.parent_id + " has key '" + op.idempotency_key
           + "', which names no slot of its parent";
  });
  if (!slot)
    return;
  auto taken = slots_.emplace(
    slot->parent + "/" + slot->step + "#" + std::to_string(slot->run) + "/" + slot->key, op.id);
  log_.check_lazy(taken.second, [&] {
    return "operations " + taken.first->second + " and " + op.id + " are both child '" + slot->key
           + "' of step " + slot->step + " of " + op.parent_id;
  });
}

void sim_store::check_family(const operation& parent) {
  auto* recorded = parent.data.if_contains("children");
  if (!recorded || !recorded->is_object())
    return;
  for (auto& [step, ids] : recorded->as_object()) {
    // Only a step that completed stands by its children.
    bool done = false;
    int32_t run = 0;
    for (auto& rec : parent.steps)
      if (rec.name == step) {
        done = rec.state == step_state::succeeded;
        run = rec.run;
      }
    if (!done)
      continue;
    std::set<std::string> written;
    for (auto& kv : ids.as_object())
      written.insert(std::string{kv.value().as_string()});
    std::set<std::string> found;
    std::string prefix = parent.id + "/" + std::string{step} + "#" + std::to_string(run) + "/";
    for (auto i = slots_.lower_bound(prefix);
         i != slots_.end() && i->first.compare(0, prefix.size(), prefix) == 0; ++i)
      found.insert(i->second);
    log_.check_lazy(written == found, [&, step = step] {
      return "operation " + parent.id + " records " + std::to_string(written.size())
             + " children of step " + std::string{step} + " but has "
             + std::to_string(found.size());
    });
  }
}

void sim_store::check_settled() {
  check_removed_events();
  for (auto& id : order_) {
    auto op = peek(id);
    log_.check_lazy(op.has_value() != removed(id), [&] {
      return "operation " + id
             + (op ? " was removed by a purge but is stored" : " vanished from the store");
    });
    if (!op)
      continue;
    log_.check_lazy(op->schedule_id.empty() || fired_ops_.count(id), [&] {
      return "operation " + id + " of schedule " + op->schedule_id + " has no schedule_fired event";
    });
    check_family(*op);
    bool open = run_open(id);
    log_.check_lazy(is_terminal(op->state) != open, [&] {
      return "operation " + id + " is " + std::string{to_string(op->state)}
             + (open ? " but its run has no terminal event"
                     : " but its run ended with a terminal event");
    });
  }
}

std::string sim_store::backend() const {
  return "sim";
}

std::shared_ptr<const prepared_checkpoint> sim_store::prepare(const checkpoint& cp) const {
  if (!cp.op)
    return nullptr;
  auto& id = cp.op->id;
  // Draining: a start, a schedule's fire or a step's child is refused
  // before its create is submitted.
  log_.check_lazy(!drained || cp.what != checkpoint::kind::create, [&] {
    return "operation " + id + " of " + cp.op->workflow + " created after the drain began";
  });
  // After a lost lease, the old actors' writes prepared against a revision
  // a claim has since bumped are refused: not in flight for the check.
  if (leasing && claimed_.count(id) > 0) {
    auto stored = inner_.load(id);
    if (stored && *stored && (**stored).revision >= cp.op->revision)
      return nullptr;
  }
  log_.check_lazy(submitted_.insert(in_flight(id)).second, [&] {
    return "two commits in flight for operation " + id + " (revision "
           + std::to_string(cp.op->revision) + " submitted before the last one was written)";
  });
  return nullptr;
}

void sim_store::on_event(const event& e) {
  if (e.type == event_type::schedule_fired) {
    // A fire happens once: one operation per schedule and fire time.
    auto fire = std::string{e.extra.at("schedule").as_string()} + " at "
                + std::string{e.extra.at("fire_time").as_string()};
    log_.check_lazy(fires_.insert(fire).second, [&] { return "schedule fired twice: " + fire; });
    fired_ops_.insert(e.operation_id);
    return;
  }
  if (e.type == event_type::schedule_skipped || e.type == event_type::schedule_changed)
    return;
  auto& top = top_seq_[e.operation_id];
  top = std::max(top, e.seq);
  if (e.type == event_type::operation_retried || e.type == event_type::operation_resumed)
    budgets_[e.operation_id] += 1;
  check_task_event(e);
  check_repair_event(e);
  auto& open = open_[e.operation_id];
  if (is_terminal(e.type)) {
    log_.check_lazy(open, [&] {
      return "second terminal event (" + std::string{to_string(e.type)} + ", seq "
             + std::to_string(e.seq) + ") in one run of operation " + e.operation_id;
    });
    open = false;
  } else if (e.type != event_type::signal_received && e.type != event_type::operation_queued) {
    open = true;
  }
}

void sim_store::record(const checkpoint& cp, write_status status) {
  if (cp.sched) {
    // One process serializes the writes of each schedule: none meets
    // another revision.
    log_.check_lazy(status == write_status::ok || processes > 1, [&] {
      return "schedule " + cp.sched->id + " write of revision " + std::to_string(cp.sched->revision)
             + " was refused in a store of one process";
    });
    return;
  }
  if (!cp.op)
    return;
  auto& op = *cp.op;
  submitted_.erase(in_flight(op.id));
  // A purge takes only ended operations, and ids are fresh: nothing
  // removed is created again.
  log_.check_lazy(cp.what != checkpoint::kind::create || !removed(op.id), [&] {
    return "operation " + op.id + " was created again after a purge removed it";
  });
  if (status == write_status::duplicate_key) {
    log_.check_lazy(cp.what == checkpoint::kind::create,
                    [&] { return "update of " + op.id + " answered duplicate_key"; });
    return;
  }
  // An update of an ended operation (a retry, a resume, a signal) that
  // a purge removed first is the one stale write one process may meet.
  // So may one that a claim took over (its revision bumped).
  // With several processes, so may one that met another process's write
  // (two retries of an ended operation through two processes: one wins).
  log_.check_lazy(status == write_status::ok || removed(op.id) || claimed_.count(op.id) > 0
                    || processes > 1,
                  [&] {
                    return "update of " + op.id + " to revision " + std::to_string(op.revision)
                           + " was stale in a store of one process";
                  });
  if (status != write_status::ok && removed(op.id))
    log_.note("store: update of " + op.id + " to revision " + std::to_string(op.revision)
              + " is stale: a purge removed it");
  if (status != write_status::ok)
    return;
  if (mirror_rounds) {
    if (cp.what == checkpoint::kind::create)
      mirror_.created(op);
    else
      mirror_.updated(op);
  }
  auto& revs = history_[op.id];
  if (cp.what == checkpoint::kind::create) {
    order_.push_back(op.id);
    check_child(op);
  }
  log_.check_lazy(revs.empty() || revs.rbegin()->first < op.revision, [&] {
    return "operation " + op.id + " went back from revision " + std::to_string(revs.rbegin()->first)
           + " to " + std::to_string(op.revision);
  });
  revs[op.revision] = fingerprint(op);
  check_task_data(op);
  check_version(op);
  if (op.admission == admission::none || op.state == op_state::pending || is_terminal(op.state))
    return;
  auto stored = peek(op.id);
  log_.check_lazy(stored && stored->admission == admission::admitted, [&] {
    return "operation " + op.id + " is " + std::string{to_string(op.state)}
           + " without being admitted";
  });
}

caf::expected<std::optional<operation>> sim_store::load(const std::string& id) {
  if (auto err = read_fault("load"))
    return err;
  return inner_.load(id);
}

caf::expected<std::optional<operation>> sim_store::find_by_key(const std::string& key) {
  if (auto err = read_fault("find_by_key"))
    return err;
  return inner_.find_by_key(key);
}

caf::expected<std::vector<operation>> sim_store::load_active_page(
  const std::optional<active_position>& after, size_t limit) {
  if (auto err = read_fault("load_active_page"))
    return err;
  return inner_.load_active_page(after, limit);
}

caf::expected<operation_page> sim_store::list(const list_filter& filter) {
  if (auto err = read_fault("list"))
    return err;
  return inner_.list(filter);
}

caf::expected<std::vector<event>> sim_store::events_after(int64_t after, size_t limit) {
  if (auto err = read_fault("events_after"))
    return err;
  return inner_.events_after(after, limit);
}

caf::expected<int64_t> sim_store::last_seq() {
  return inner_.last_seq();
}

caf::expected<std::vector<schedule>> sim_store::load_schedules() {
  if (auto err = read_fault("load_schedules"))
    return err;
  return inner_.load_schedules();
}

caf::expected<std::optional<schedule>> sim_store::load_schedule(const std::string& id) {
  if (auto err = read_fault("load_schedule"))
    return err;
  return inner_.load_schedule(id);
}

} // namespace stepwise::sim
