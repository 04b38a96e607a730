// An embedding program whose step is an actor of its own: the host keeps a
// quota of job slots in a CAF actor, and each `batch_job` operation asks it
// for a slot before it works and gives the slot back after. An attempt that
// finds no free slot is answered later, when one is released: the engine
// waits for that answer holding no thread (one step worker serves them all).
//
// usage: embed_quota [STORE_URI]   exits 0 when every job succeeded and no
// more jobs held a slot at once than the quota allows.
#include <deque>
#include <iostream>
#include <map>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "engine/actor_step.hpp"
#include "engine/engine.hpp"
#include "storage/open_engine.hpp"
#include "engine/errc.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

namespace {

using peak_atom = caf::atom_constant<caf::atom("peak")>;

struct quota_state {
  int32_t slots = 0;
  std::map<std::string, int32_t> holders; // operation -> slot
  std::deque<std::pair<step_attempt, caf::typed_response_promise<step_reply>>> queue;
  size_t peak = 0;
  size_t queued_ever = 0;
};

/// A step actor (the engine's protocol), and the host's own question: the
/// most slots held at once, and how many attempts had to wait.
using quota_actor = step_actor::extend<caf::replies_to<peak_atom>::with<std::pair<size_t, size_t>>>;
using quota_ptr = quota_actor::stateful_pointer<quota_state>;

/// Grants `a` a free slot (or the one it holds: a retried attempt gets the
/// same slot back); returns the reply, or nothing when every slot is taken.
std::optional<step_reply> grant(quota_ptr self, step_attempt& a) {
  auto& st = self->state;
  auto held = st.holders.find(a.operation_id);
  int32_t slot = held != st.holders.end() ? held->second : -1;
  for (int32_t s = 0; slot < 0 && s < st.slots; ++s) {
    bool taken = false;
    for (auto& kv : st.holders)
      taken = taken || kv.second == s;
    if (!taken)
      slot = s;
  }
  if (slot < 0)
    return std::nullopt;
  st.holders[a.operation_id] = slot;
  st.peak = std::max(st.peak, st.holders.size());
  a.data["slot"] = slot;
  return step_reply{done(), std::move(a.data), {}};
}

quota_actor::behavior_type quota(quota_ptr self, int32_t slots) {
  self->state.slots = slots;
  return {
    [=](step_attempt& a) -> caf::result<step_reply> {
      auto& st = self->state;
      if (a.step == "release_slot") {
        st.holders.erase(a.operation_id);
        // The freed slot goes to the longest waiting attempt.
        while (!st.queue.empty()) {
          auto& [next, rp] = st.queue.front();
          auto reply = grant(self, next);
          if (!reply)
            break;
          rp.deliver(std::move(*reply));
          st.queue.pop_front();
        }
        return step_reply{done(), std::nullopt, {}};
      }
      a.data["queued_behind"] = static_cast<int64_t>(st.queue.size());
      if (st.queue.empty() || st.holders.count(a.operation_id) > 0)
        if (auto reply = grant(self, a))
          return std::move(*reply);
      auto rp = self->make_response_promise<step_reply>();
      st.queue.emplace_back(std::move(a), rp);
      st.queued_ever += 1;
      return rp;
    },
    // The engine gave up on an attempt (its timeout): it no longer waits.
    [=](step_stop_atom, const std::string& id, int32_t attempt) {
      auto& q = self->state.queue;
      for (auto i = q.begin(); i != q.end(); ++i)
        if (i->first.operation_id == id && i->first.attempt == attempt) {
          q.erase(i);
          break;
        }
    },
    [=](peak_atom) { return std::make_pair(self->state.peak, self->state.queued_ever); },
  };
}

} // namespace

int main(int argc, char** argv) {
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  constexpr int32_t slots = 2;
  auto slots_actor = sys.spawn(quota, slots);
  // The system waits for its actors when it ends: stop ours on every path.
  struct stop_at_exit {
    quota_actor a;
    ~stop_at_exit() {
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
  } stop{slots_actor};
  registry reg;
  auto ok = reg.add(workflow("batch_job", 1)
                      .step(10, make_actor_step("reserve_slot", slots_actor).with_timeout(60s))
                      .step(20, make_sleep("work", 300ms))
                      .step(30, make_actor_step("release_slot", slots_actor).with_timeout(10s)));
  engine_config ec;
  ec.store_uri = argc > 1 ? argv[1] : "sqlite:./stepwise-quota.db";
  ec.step_workers = 1;
  auto eng = open_engine(sys, ec, std::move(reg));
  if (!ok || !eng) {
    std::cerr << "start-up failed\n";
    return 1;
  }
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    auto started = eng->start({"batch_job", std::nullopt, {{"job", i}}, {}, std::nullopt});
    if (!started) {
      std::cerr << message_of(started.error()) << '\n';
      return 1;
    }
    ids.push_back(started->op.id);
  }
  bool all_ok = true;
  for (auto& id : ids) {
    auto op = eng->wait(id, 30s);
    if (!op) {
      std::cerr << message_of(op.error()) << '\n';
      return 1;
    }
    all_ok = all_ok && op->state == op_state::succeeded;
    std::cout << op->id << " " << to_string(op->state) << ": slot " << op->data["slot"]
              << ", queued behind " << op->data["queued_behind"] << " jobs, reserve_slot took "
              << op->steps[0].duration_ms << " ms\n";
  }
  std::pair<size_t, size_t> seen{0, 0};
  caf::scoped_actor self{sys};
  self->request(slots_actor, caf::infinite, peak_atom::value)
    .receive([&](std::pair<size_t, size_t> x) { seen = x; }, [](caf::error&) {});
  std::cout << "at most " << seen.first << " of " << slots << " slots held at once; " << seen.second
            << " attempts waited for a slot in the quota actor\n";
  eng->shutdown();
  return all_ok && seen.first <= slots ? 0 : 1;
}
