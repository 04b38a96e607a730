#include "tests/simulation/sim_client.hpp"
#include "tests/simulation/sim_client_ask.hpp"

#include <algorithm>

#include <boost/json/serialize.hpp>

#include "engine/errc.hpp"
#include "engine/requests.hpp"
#include "tests/simulation/fingerprint.hpp"
#include "tests/simulation/sim_workflows.hpp"

namespace stepwise::sim {

namespace {

constexpr auto unknown_id = "op-that-does-not-exist";

} // namespace

sim_client::sim_client(sim_log& log, std::mt19937_64& rng, sim_store& store, bool store_faults)
  : log_(log), rng_(rng), store_(store), store_faults_(store_faults) {
  // nop
}

void sim_client::seen(const operation& op, const std::string& what) {
  auto held = store_.held(op.id, op.revision);
  log_.check_lazy(held && *held == fingerprint(op), [&] {
    return what + ": the answer shows " + op.id + " " + std::string{to_string(op.state)}
           + " at revision " + std::to_string(op.revision)
           + (held ? ", not as the store held it" : ", a revision the store never held");
  });
  bool queued = op.state == op_state::pending && op.admission == admission::queued;
  log_.check_lazy(queued || op.blocked_by.empty(), [&] {
    return what + ": " + op.id + " is " + std::string{to_string(op.state)}
           + " and still shows blocked_by " + op.blocked_by;
  });
  auto i = ops_.find(op.id);
  if (i != ops_.end())
    i->second.acked = std::max(i->second.acked, op.revision);
}

std::string sim_client::target() {
  if (ids_.empty() || rng_() % 10 == 0)
    return unknown_id;
  return ids_[rng_() % ids_.size()];
}

void sim_client::start(sim_world& world) {
  auto& names = sim_workflow_names;
  start_request req;
  req.workflow = names[rng_() % names.size()];
  req.input = random_input(req.workflow, rng_);
  if (rng_() % 3 == 0) {
    req.idempotency_key = "key" + std::to_string(rng_() % 5);
    auto k = keys_.find(req.idempotency_key);
    if (k != keys_.end() && rng_() % 2 == 0) {
      // The same request again: a replay of the first.
      auto body = boost::json::parse(k->second.first).as_object();
      req.workflow = body["workflow"].as_string().c_str();
      req.input = body["input"].as_object();
    }
  }
  if (rng_() % 7 == 0)
    req.deadline = world.clock().now() + std::chrono::milliseconds(500 + rng_() % 10000);
  auto body =
    boost::json::serialize(boost::json::object{{"workflow", req.workflow}, {"input", req.input}});
  req.by = client_by("start");
  auto key = req.idempotency_key;
  auto what = "start " + req.workflow + (key.empty() ? "" : " key " + key);
  if (drained) {
    // Refused before anything is read or written, a replay included.
    what += " (draining)";
    ask<start_result>(world, std::make_tuple(start_atom::value, req), what,
                      [this, what](start_result& res) {
                        log_.check(false,
                                   what + " was answered with " + res.op.id + ", not refused");
                      },
                      {code(errc::shutting_down)});
    return;
  }
  ask<start_result>(
    world, std::make_tuple(start_atom::value, req), what,
    [this, key, body, what, wf = req.workflow](start_result& res) {
      if (!key.empty()) {
        auto k = keys_.find(key);
        if (k == keys_.end()) {
          keys_[key] = {body, res.op.id};
        } else if (k->second.second != res.op.id && store_.removed(k->second.second)) {
          // A purge removed the key's operation: the key is free again.
          k->second = {body, res.op.id};
        } else if (k->second.second != res.op.id && store_.removed(res.op.id)) {
          // A late answer: its operation was removed since, which freed the
          // key for the start answered first.
        } else {
          log_.check_lazy(k->second.second == res.op.id, [&] {
            return what + " gave " + res.op.id + ", the key's first start gave " + k->second.second;
          });
        }
      }
      if (!ops_.count(res.op.id)) {
        ops_[res.op.id].workflow = wf;
        ids_.push_back(res.op.id);
      }
      seen(res.op, what);
      // A start that is queued says what it waits for, unless it no longer
      // waits: an admission round names it only while it does, and its
      // deadline (or a cancel) may end it before any round ran.
      auto now = store_.peek(res.op.id);
      bool still_queued =
        now && now->state == op_state::pending && now->admission == admission::queued;
      log_.check_lazy(!res.created || res.op.admission != admission::queued
                        || !res.op.blocked_by.empty() || !still_queued,
                      [&] { return what + ": queued " + res.op.id + " without blocked_by"; });
    },
    {code(errc::idempotency_conflict), code(errc::shutting_down)});
}

void sim_client::command_call(sim_world& world, const std::string& id) {
  static const char* names[] = {"cancel", "retry", "pause", "resume", "repair retry", "skip"};
  auto pick = rng_() % 6;
  auto what = std::string{names[pick]} + " " + id;
  std::set<uint8_t> allowed{code(errc::invalid_state)};
  if (id == unknown_id)
    allowed.insert(code(errc::not_found));
  command_request req;
  if (pick < 4) {
    req.kind = static_cast<command>(pick);
  } else {
    // The repairs carry what only the operation can check (its steps): a
    // name it does not have now and then, refused as an invalid argument.
    allowed.insert(code(errc::invalid_argument));
    repair_request(id, pick == 5, req);
    what += " " + (req.kind == command::skip ? req.step : req.from_step)
            + (req.input_patch ? " patched" : "");
  }
  req.by = client_by("op " + id);
  ask<operation>(
    world, std::make_tuple(command_atom::value, id, req), what,
    [this, what](operation& op) { seen(op, what); }, allowed, id);
}

void sim_client::repair_request(const std::string& id, bool skip, command_request& req) {
  auto op = store_.peek(id);
  auto step = [&]() -> std::string {
    if (!op || op->steps.empty() || rng_() % 10 == 0)
      return "no-such-step";
    return op->steps[rng_() % op->steps.size()].name;
  };
  if (skip) {
    req.kind = command::skip;
    req.step = step();
    req.reason = rng_() % 20 == 0 ? std::string{} : "sim";
    return;
  }
  req.kind = command::retry;
  if (rng_() % 3 != 0)
    req.from_step = step();
  if (op && rng_() % 2 == 0) {
    // A new plan for its steps (or none: each succeeds at once), as a
    // person fixing the input would send.
    // Parentheses: braces around one value make an array of it.
    auto plan = rng_() % 3 == 0 ? boost::json::value()
                                : boost::json::value(random_input(op->workflow, rng_)["plan"]);
    req.input_patch = boost::json::object{{"plan", std::move(plan)}};
  }
}

void sim_client::signal_call(sim_world& world, const std::string& id, std::string name) {
  signal_request sig;
  sig.name = std::move(name);
  sig.payload = boost::json::object{{"n", rng_() % 100}};
  if (rng_() % 2 == 0)
    sig.signal_id = "s" + std::to_string(rng_() % 3);
  sig.by = client_by("op " + id);
  auto what =
    "signal " + sig.name + (sig.signal_id.empty() ? "" : " id " + sig.signal_id) + " to " + id;
  std::set<uint8_t> allowed{code(errc::invalid_state)};
  if (id == unknown_id)
    allowed.insert(code(errc::not_found));
  ask<signal_result>(
    world, std::make_tuple(signal_atom::value, id, sig), what,
    [this, what, sid = sig.signal_id](signal_result& res) {
      seen(res.op, what);
      if (sid.empty())
        return;
      bool shown = std::any_of(res.op.signals.begin(), res.op.signals.end(),
                               [&](const signal_record& r) { return r.id == sid; });
      (shown ? ops_[res.op.id].signals : ops_[res.op.id].stored_signals).insert(sid);
    },
    allowed, id);
}

void sim_client::random_call(sim_world& world) {
  auto kind = rng_() % 18;
  log_.choose(kind);
  if (kind < 5) {
    start(world);
    return;
  }
  if (kind >= 16) {
    schedule_call(world);
    return;
  }
  auto id = target();
  if (kind < 8) {
    std::set<uint8_t> allowed;
    if (id == unknown_id)
      allowed.insert(code(errc::not_found));
    if (kind == 7) {
      // A timed wait: answered when the operation ends or at its time
      // (check_waits), from none to a few seconds of the engine's clock.
      using namespace std::chrono_literals;
      static constexpr caf::timespan limits[] = {0ms, 40ms, 900ms, 5s};
      auto limit = limits[waits_++ % 4];
      auto what = "wait " + id + " " + std::to_string(limit.count() / 1000000) + " ms";
      ask<operation>(
        world, std::make_tuple(wait_atom::value, id, limit), what,
        [this, what](operation& op) { seen(op, what); }, allowed, id);
      return;
    }
    // What the store held when the get was sent: the answer is no older
    // (an event of a newer revision may have been read by then).
    auto stored = id == unknown_id ? std::nullopt : store_.peek(id);
    auto floor = stored ? stored->revision : 0;
    ask<operation>(
      world, std::make_tuple(get_atom::value, id), "get " + id,
      [this, id, floor](operation& op) {
        seen(op, "get " + id);
        log_.check_lazy(op.revision >= floor, [&] {
          return "get " + id + ": the answer shows revision " + std::to_string(op.revision)
                 + ", older than the " + std::to_string(floor) + " stored when it was asked";
        });
      },
      allowed, id);
  } else if (kind < 12) {
    command_call(world, id);
  } else if (kind < 15) {
    auto i = ops_.find(id);
    auto names = i == ops_.end() ? std::vector<std::string>{} : signals_of(i->second.workflow);
    names.push_back("ping");
    signal_call(world, id, names[rng_() % names.size()]);
  } else if (rng_() % 2 == 0) {
    list_filter f;
    f.limit = 1 + rng_() % 5;
    ask<operation_page>(world, std::make_tuple(list_atom::value, f), "list",
                        [this](operation_page& page) {
                          for (auto& op : page.items)
                            seen(op, "list");
                        },
                        {});
  } else {
    auto after = static_cast<int64_t>(rng_() % 20);
    ask<std::vector<event>>(world, std::make_tuple(events_atom::value, after, uint64_t{10}),
                            "events", [](std::vector<event>&) {}, {});
  }
}

bool sim_client::nudge(sim_world& world) {
  bool sent = false;
  // Every operation the store has: a start whose answer a restart lost is
  // not known to the client, and must end all the same.
  for (auto& id : store_.ids()) {
    auto op = store_.peek(id);
    if (!op || is_terminal(op->state))
      continue;
    if (op->state == op_state::paused) {
      ask<operation>(
        world,
        std::make_tuple(command_atom::value, id,
                        command_request{command::resume, client_by("op " + id)}),
        "resume " + id, [this, id](operation& x) { seen(x, "resume " + id); },
        {code(errc::invalid_state)}, id);
      sent = true;
    } else if (op->state == op_state::waiting || op->state == op_state::pending) {
      auto names = signals_of(op->workflow);
      if (names.empty())
        continue;
      signal_request sig;
      sig.name = names.front();
      // One stored and not yet taken is what its wait will take: another
      // would only wake a queued operation to store it (with dozens
      // queued behind one key, that churn outran the run's step budget).
      bool stored = std::any_of(op->signals.begin(), op->signals.end(), [&](auto& r) {
        return r.name == sig.name && r.consumed_by.empty();
      });
      if (stored)
        continue;
      sig.by = client_by("op " + id);
      ask<signal_result>(
        world, std::make_tuple(signal_atom::value, id, sig), "signal " + sig.name + " to " + id,
        [this, id](signal_result& x) { seen(x.op, "signal to " + id); },
        {code(errc::invalid_state)}, id);
      sent = true;
    }
  }
  return sent;
}

void sim_client::check_acked() {
  for (auto& [id, known] : ops_) {
    auto op = store_.peek(id);
    log_.check_lazy(op.has_value() || store_.removed(id), [&, id = id] {
      return "acknowledged operation " + id + " is not in the store";
    });
    if (!op)
      continue;
    log_.check_lazy(op->revision >= known.acked, [&, id = id, acked = known.acked] {
      return "operation " + id + " is at revision " + std::to_string(op->revision)
             + " in the store, an answer showed " + std::to_string(acked);
    });
    auto there = [&](const std::string& sid) {
      return std::any_of(op->signals.begin(), op->signals.end(),
                         [&](const signal_record& s) { return s.id == sid; });
    };
    for (auto& sid : known.signals)
      log_.check_lazy(there(sid), [&, id = id] {
        return "acknowledged signal " + sid + " of " + id + " is not in the store";
      });
    for (auto& sid : known.stored_signals)
      log_.check_lazy(there(sid) || is_terminal(op->state) || store_.stores_signal(id, sid)
                        || store_.refused_while_ended(id, sid),
                      [&, id = id] {
                        return "signal " + sid + " stored for the owner of " + id
                               + " is lost: neither recorded nor stored, and the operation "
                                 "goes on";
                      });
  }
}

} // namespace stepwise::sim
