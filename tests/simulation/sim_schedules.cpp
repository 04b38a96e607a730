// The simulated clients' requests about schedules, and what their answers
// promise: every acknowledged write is in the store.
#include "engine/schedule_requests.hpp"
#include "tests/simulation/sim_client.hpp"
#include "tests/simulation/sim_client_ask.hpp"
#include "tests/simulation/sim_workflows.hpp"

namespace stepwise::sim {

namespace {

/// A definition for `id`: every 1 to 30 s, random policies.
schedule random_schedule(const std::string& id, std::mt19937_64& rng) {
  static const int periods[] = {1, 2, 5, 30};
  schedule s;
  s.id = id;
  s.workflow = sim_workflow_names[rng() % sim_workflow_names.size()];
  s.input = random_input(s.workflow, rng);
  s.every = std::chrono::seconds{periods[rng() % 4]};
  if (rng() % 3 == 0)
    s.offset = *s.every / 2;
  s.overlap = static_cast<overlap_policy>(rng() % 3);
  s.catch_up = static_cast<catch_up_policy>(rng() % 3);
  s.catch_up_window = std::chrono::seconds{1 + rng() % 20};
  s.paused = rng() % 8 == 0;
  return s;
}

} // namespace

void sim_client::schedule_call(sim_world& world) {
  auto id = "sch" + std::to_string(rng_() % 3);
  auto kind = rng_() % 8;
  log_.choose(kind);
  auto call = ++schedule_calls_;
  auto by = client_by("schedule " + id);
  auto note = [this, id, call](const schedule_view& v) {
    auto& k = schedules_[id];
    if (call > k.deleted_at)
      k.acked = std::max(k.acked, v.schedule.revision);
  };
  std::set<uint8_t> missing{code(errc::not_found)};
  switch (kind) {
    case 0:
    case 1: {
      auto s = random_schedule(id, rng_);
      ask_keeper<schedule_result>(
        world, std::make_tuple(schedule_create_atom::value, s, by), "create schedule " + id,
        [note](schedule_result& r) { note(r.view); }, {code(errc::idempotency_conflict)});
      break;
    }
    case 2: {
      auto s = random_schedule(id, rng_);
      ask_keeper<schedule_view>(world, std::make_tuple(schedule_replace_atom::value, s, by),
                                "replace schedule " + id, note, missing);
      break;
    }
    case 3:
      schedules_[id] = known_schedule{0, call};
      // Unordered (several processes, a lost lease): requests sent before
      // this one's answer may be carried out before the delete: only those
      // sent after the answer count.
      deleting_[id] += 1;
      ask_keeper<schedule_view>(
        world, std::make_tuple(schedule_delete_atom::value, id, by), "delete schedule " + id,
        [this, id](schedule_view&) {
          if (unordered())
            schedules_[id] = known_schedule{0, schedule_calls_};
        },
        missing, [this, id] { deleting_[id] -= 1; });
      break;
    case 4:
    case 5: {
      bool paused = kind == 4;
      ask_keeper<schedule_view>(world, std::make_tuple(schedule_pause_atom::value, id, paused, by),
                                (paused ? "pause schedule " : "resume schedule ") + id, note,
                                missing);
      break;
    }
    case 6: {
      // A fire creates an operation: a draining process refuses it.
      auto with_refusal = missing;
      with_refusal.insert(code(errc::shutting_down));
      ask_keeper<start_result>(
        world, std::make_tuple(schedule_trigger_atom::value, id, by), "trigger schedule " + id,
        [this](start_result& res) {
          if (!ops_.count(res.op.id)) {
            ops_[res.op.id].workflow = res.op.workflow;
            ids_.push_back(res.op.id);
          }
          seen(res.op, "trigger");
        },
        with_refusal);
      break;
    }
    default:
      ask_keeper<std::vector<schedule_view>>(world, std::make_tuple(schedule_list_atom::value),
                                             "list schedules", [](std::vector<schedule_view>&) {},
                                             {});
      break;
  }
}

bool sim_client::pause_schedules(sim_world& world) {
  auto all = store_.load_schedules();
  if (!all)
    return true; // a read fault: try again later
  bool sent = false;
  for (auto& s : *all) {
    if (s.paused)
      continue;
    ask_keeper<schedule_view>(
      world, std::make_tuple(schedule_pause_atom::value, s.id, true, client_by("schedule " + s.id)),
      "pause schedule " + s.id, [](schedule_view&) {}, {code(errc::not_found)});
    sent = true;
  }
  return sent;
}

void sim_client::check_schedules() {
  auto all = store_.load_schedules();
  if (!all)
    return;
  for (auto& [id, k] : schedules_) {
    const schedule* found = nullptr;
    for (auto& s : *all)
      if (s.id == id)
        found = &s;
    if (unordered() && deleting_[id] > 0)
      continue; // carried out at any point until it is answered
    log_.check_lazy(found || k.acked == 0, [&, id = id] {
      return "acknowledged schedule " + id + " is not in the store";
    });
    log_.check_lazy(!found || found->revision >= k.acked, [&, id = id, acked = k.acked] {
      return "schedule " + id + " is at revision " + std::to_string(found->revision)
             + " in the store, an answer showed " + std::to_string(acked);
    });
  }
}

} // namespace stepwise::sim
