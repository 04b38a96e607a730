// The simulation store's admission rounds: planned from a full read, or
// (a swarm setting) as SQLite plans them, from the rows that wait and a
// summary of those that run kept by an `admission_mirror`, checked against
// the plan of a full read at every round; and what every round must keep.
#include "tests/simulation/sim_store.hpp"

#include "engine/errc.hpp"

namespace stepwise::sim {

void sim_store::check_admission(const admission_round& round) {
  auto active = inner_.load_active();
  if (!active)
    return;
  std::set<std::string> admitted_now;
  for (auto& u : round.updates)
    if (u.admission == admission::admitted)
      admitted_now.insert(u.id);
  std::map<std::string, size_t> holders; // key -> admitted, not ended
  std::map<std::string, size_t> running; // workflow -> admitted, not ended
  for (auto& op : *active) {
    if (op.admission != admission::admitted)
      continue;
    if (!op.key.empty())
      holders[op.key] += 1;
    running[op.workflow] += 1;
  }
  for (auto& [key, n] : holders)
    log_.check_lazy(n <= 1, [&, key = key, n = n] {
      return std::to_string(n) + " operations hold key '" + key + "' at once";
    });
  for (auto& [wf, n] : running) {
    auto lim = limits_.find(wf);
    log_.check_lazy(lim == limits_.end() || n <= lim->second, [&, wf = wf, n = n] {
      return std::to_string(n) + " operations of " + wf + " admitted, over its limit";
    });
  }
  // In creation order: none admitted now while an older one of its key
  // waits, or (with a limit) an older one of its workflow waits for a slot.
  std::set<std::string> keys_waiting;
  std::set<std::string> slot_waiting;
  for (auto& op : *active) {
    if (op.admission == admission::queued) {
      bool behind_key = !op.key.empty() && (holders.count(op.key) || keys_waiting.count(op.key));
      if (!behind_key)
        slot_waiting.insert(op.workflow);
      if (!op.key.empty())
        keys_waiting.insert(op.key);
      continue;
    }
    if (!admitted_now.count(op.id))
      continue;
    log_.check_lazy(op.key.empty() || !keys_waiting.count(op.key), [&] {
      return "operation " + op.id + " admitted ahead of an older one with key '" + op.key + "'";
    });
    log_.check_lazy(!limits_.count(op.workflow) || !slot_waiting.count(op.workflow), [&] {
      return "operation " + op.id + " admitted ahead of an older one of " + op.workflow
             + " waiting for a slot";
    });
  }
}

namespace {} // namespace

admission_round sim_store::mirrored_round(const admission_limits& limits, time_point now) {
  auto rows = inner_.admission_queue();
  std::vector<admission_row> plain;
  for (auto& r : rows)
    plain.push_back(r.row);
  if (!mirror_.loaded()) {
    std::vector<admission_mirror::loaded_row> loaded;
    for (auto& r : rows)
      loaded.push_back({r.row, r.created_at});
    mirror_.load(std::move(loaded));
  }
  // As SQLite plans: the rows that wait and a summary of those that run.
  auto got = plan_round(mirror_.waiting(), limits, now, mirror_.held());
  auto want = plan_round(plain, limits, now);
  log_.check_lazy(describe_round(got) == describe_round(want), [&] {
    return "admission round: the summary plans '" + describe_round(got) + "', a full read '"
           + describe_round(want) + "'";
  });
  inner_.write_round(got);
  mirror_.apply(got.updates);
  return got;
}

caf::expected<admission_round> sim_store::admit(const admission_limits& limits, time_point now) {
  if (roll(faults.admit_fail)) {
    log_.note("store: admission round fails (injected)");
    mirror_.invalidate();
    return make_error(errc::store_failure, "sim: admission round failed (injected)");
  }
  caf::expected<admission_round> res =
    mirror_rounds ? mirrored_round(limits, now) : inner_.admit(limits, now);
  if (!res)
    return res;
  for (auto& e : res->events)
    on_event(e);
  check_admission(*res);
  return res;
}

} // namespace stepwise::sim
