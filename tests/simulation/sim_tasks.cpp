#include "tests/simulation/sim_tasks.hpp"

#include <algorithm>

#include "engine/errc.hpp"
#include "tests/simulation/sim_workflows.hpp"

namespace stepwise::sim {

namespace {

using namespace std::chrono_literals;

constexpr size_t workers = 3;

bool stale(const caf::error& err) {
  return code_of(err) == errc::stale_task;
}

std::string attempt_key(const sim_lease& l) {
  return l.op + "/" + l.step + "/" + std::to_string(l.attempt) + "@" + std::to_string(l.node);
}

} // namespace

sim_workers::sim_workers(sim_log& log, std::mt19937_64& rng, sim_store& store)
  : log_(log), rng_(rng), store_(store) {
  // nop
}

uint64_t sim_workers::weight(size_t proc, sim_world& w, bool final) const {
  auto out = polls_out_.count(proc) ? polls_out_.at(proc) : 0;
  bool ready = w.stats().tasks_ready.load() > 0;
  bool holds = std::any_of(held_.begin(), held_.end(), [&](auto& l) { return l.proc == proc; });
  bool late = std::any_of(late_.begin(), late_.end(), [&](auto& l) { return l.proc == proc; });
  bool polls = out < 3 && (ready || (!final && out < 2));
  return polls || holds || late ? 3 : 0;
}

void sim_workers::act(size_t proc, sim_world& w, bool final) {
  auto what = rng_() % 10;
  log_.choose(what);
  if (what < 3) {
    poll(proc, w, final);
    return;
  }
  auto k = pick_held(proc);
  if (what < 5 && k != SIZE_MAX) {
    beat(w, k);
  } else if (what < 8 && k != SIZE_MAX) {
    auto lease = held_[k];
    held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(k));
    if (rng_() % 4 == 0)
      late_.push_back(lease); // it may answer again
    answer(w, std::move(lease));
  } else if (what == 8 && k != SIZE_MAX) {
    die(proc);
  } else {
    std::vector<size_t> mine;
    for (size_t i = 0; i < late_.size(); ++i)
      if (late_[i].proc == proc)
        mine.push_back(i);
    if (mine.empty()) {
      poll(proc, w, final);
      return;
    }
    auto i = mine[rng_() % mine.size()];
    log_.choose(i);
    auto lease = late_[i];
    late_.erase(late_.begin() + static_cast<std::ptrdiff_t>(i));
    log_.note("a worker answers late");
    answer(w, std::move(lease));
  }
}

size_t sim_workers::pick_held(size_t proc) {
  std::vector<size_t> mine;
  for (size_t i = 0; i < held_.size(); ++i)
    if (held_[i].proc == proc)
      mine.push_back(i);
  if (mine.empty())
    return SIZE_MAX;
  auto k = mine[rng_() % mine.size()];
  log_.choose(k);
  return k;
}

void sim_workers::poll(size_t proc, sim_world& w, bool final) {
  auto& out = polls_out_[proc];
  bool ready = w.stats().tasks_ready.load() > 0;
  if (out >= 3 || (!ready && (final || out >= 2)))
    return;
  task_poll p;
  p.queue = "simq";
  p.worker = "w" + std::to_string(rng_() % workers);
  p.max = 1 + rng_() % 2;
  if (!ready || rng_() % 3 == 0)
    p.wait = std::chrono::milliseconds(100 + rng_() % 2900);
  log_.choose(p.max);
  log_.note(p.worker + " polls (max " + std::to_string(p.max) + ", wait "
            + std::to_string(p.wait.count() / 1000) + " ms)");
  out += 1;
  w.ask_tasks([this, proc, &w, p](bridge_actor::pointer self, const tasks_actor& tasks) {
    self->request(tasks, caf::infinite, task_poll_atom::value, p)
      .then(
        [this, proc, &w, worker = p.worker](std::vector<task_lease>& leases) {
          polls_out_[proc] -= 1;
          std::vector<sim_lease> taken;
          for (auto& l : leases) {
            log_.note(worker + " takes " + l.operation_id + " " + l.step + " attempt "
                      + std::to_string(l.attempt));
            taken.push_back(sim_lease{l.token, l.operation_id, l.step, l.attempt, l.input,
                                      std::stoul(worker.substr(1)), proc, w.node()});
          }
          got(w, taken);
        },
        [this, proc](caf::error& err) {
          polls_out_[proc] -= 1;
          log_.check(false, "a poll was refused: " + to_string(err));
        });
  });
}

void sim_workers::got(sim_world& w, const std::vector<sim_lease>& leases) {
  for (auto& l : leases) {
    handed += 1;
    if (auto op = store_.peek(l.op))
      for (auto& rec : op->steps)
        log_.check_lazy(rec.name != l.step || rec.state != step_state::succeeded, [&] {
          return "a task of step " + l.step + " of " + l.op + " (attempt "
                 + std::to_string(l.attempt) + ") was handed out after the step succeeded";
        });
    auto& before = handed_[attempt_key(l)];
    for (auto& older : before)
      probe(w, older, l);
    before.push_back(l);
    held_.push_back(l);
  }
}

void sim_workers::probe(sim_world& w, const sim_lease& older, const sim_lease& now) {
  w.ask_tasks([this, older, now](bridge_actor::pointer self, const tasks_actor& tasks) {
    self->request(tasks, caf::infinite, task_beat_atom::value, task_beat{older.token, {}})
      .then(
        [this, older, now](task_beat_result&) {
          log_.check(false, "attempt " + std::to_string(now.attempt) + " of " + now.step + " of "
                              + now.op + " was handed to worker w" + std::to_string(now.worker)
                              + " while worker w" + std::to_string(older.worker)
                              + " still held it");
        },
        [this](caf::error& err) {
          log_.check_lazy(stale(err),
                          [&] { return "a probe heartbeat failed: " + to_string(err); });
        });
  });
}

void sim_workers::beat(sim_world& w, size_t k) {
  auto lease = held_[k];
  log_.note("w" + std::to_string(lease.worker) + " beats for " + lease.op + " " + lease.step);
  boost::json::object details{{"beat", static_cast<int64_t>(rng_() % 100)}};
  w.ask_tasks([this, lease, details](bridge_actor::pointer self, const tasks_actor& tasks) {
    self->request(tasks, caf::infinite, task_beat_atom::value, task_beat{lease.token, details})
      .then(
        [this, lease](task_beat_result& r) {
          if (!r.cancel_requested)
            return;
          // The worker stops: its task is no longer wanted.
          log_.note("w" + std::to_string(lease.worker) + " is told to stop " + lease.op);
          held_.erase(std::remove_if(held_.begin(), held_.end(),
                                     [&](auto& l) { return l.token == lease.token; }),
                      held_.end());
        },
        [this, lease](caf::error& err) {
          log_.check_lazy(stale(err), [&] { return "a heartbeat failed: " + to_string(err); });
          held_.erase(std::remove_if(held_.begin(), held_.end(),
                                     [&](auto& l) { return l.token == lease.token; }),
                      held_.end());
        });
  });
}

void sim_workers::answer(sim_world& w, sim_lease lease) {
  task_answer a;
  a.token = lease.token;
  if (lease.step == "t1" || lease.step == "t2") {
    auto plan = planned(lease.input, lease.step, lease.attempt);
    // What the store must show if this answer is applied: the attempt it
    // was for (sim_store_tasks.cpp).
    auto by = "by attempt " + std::to_string(lease.attempt);
    if (plan.what == outcome::kind::done) {
      a.data = {{"by_" + lease.step, lease.attempt}};
    } else {
      a.what = task_answer::kind::fail;
      a.error = "planned " + lease.step + " " + by;
      a.non_retryable = plan.what == outcome::kind::fail;
      if (!a.non_retryable)
        a.retry_after = plan.delay;
    }
  }
  log_.note("w" + std::to_string(lease.worker) + " answers " + lease.op + " " + lease.step
            + " attempt " + std::to_string(lease.attempt)
            + (a.what == task_answer::kind::complete ? " done" : " failed"));
  w.ask_tasks([this, a](bridge_actor::pointer self, const tasks_actor& tasks) {
    self->request(tasks, caf::infinite, task_answer_atom::value, a)
      .then([this](bool) { accepted += 1; },
            [this](caf::error& err) {
              log_.check_lazy(stale(err), [&] { return "an answer failed: " + to_string(err); });
              refused += 1;
            });
  });
}

void sim_workers::die(size_t proc) {
  auto victim = held_[pick_held(proc)].worker;
  log_.note("worker w" + std::to_string(victim) + " dies");
  for (auto i = held_.begin(); i != held_.end();) {
    if (i->worker != victim) {
      ++i;
      continue;
    }
    // A zombie may answer when it comes back (a paused machine).
    if (rng_() % 2 == 0)
      late_.push_back(*i);
    i = held_.erase(i);
  }
}

} // namespace stepwise::sim
