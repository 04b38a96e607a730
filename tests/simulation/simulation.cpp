#include "tests/simulation/simulation.hpp"

#include <memory>

#include <caf/send.hpp>
#include <random>

#include "tests/simulation/invariants.hpp"
#include "tests/simulation/sim_client.hpp"
#include "tests/simulation/sim_cluster.hpp"
#include "tests/simulation/sim_store.hpp"
#include "tests/simulation/sim_workflows.hpp"
#include "tests/simulation/sim_world.hpp"
#include "tests/simulation/swarm.hpp"

namespace stepwise::sim {

namespace {

using namespace std::chrono_literals;

/// One run: the shared store and clients, and the process of the moment.
class run {
public:
  run(const sim_options& opts) : opts_(opts), rng_(opts.seed), swarm_(pick_swarm(rng_)) {
    log_.trace_keep = opts.trace;
    swarm_.cfg.seed = opts.seed;
    std::set<std::string> admitted;
    for (auto& name : sim_workflow_names)
      if (takes_part(name))
        admitted.insert(name);
    store_ = std::make_shared<sim_store>(log_, rng_, sim_limits(), admitted);
    store_->faults = swarm_.faults;
    store_->mirror_rounds = swarm_.mirror;
    store_->retains = swarm_.retains;
    store_->leasing = swarm_.leases;
    store_->processes = swarm_.processes;
    cluster_ = std::make_unique<sim_cluster>(log_, rng_, *store_, swarm_.processes);
    workers_ = std::make_unique<sim_workers>(log_, rng_, *store_);
    cluster_->workers = workers_.get();
    for (auto& p : cluster_->procs)
      p.outside = std::make_shared<sim_world_state>(log_, *store_);
    bool faults = swarm_.faults.commit_fail > 0 || swarm_.faults.commit_unsure > 0
                  || swarm_.faults.read_fail > 0 || swarm_.faults.admit_fail > 0 || swarm_.leases;
    client_ = std::make_unique<sim_client>(log_, rng_, *store_, faults);
    client_->leases = swarm_.leases;
    client_->several_processes = swarm_.processes > 1;
  }

  sim_report go() {
    // Each at the time the ones before got to (a launch that failed
    // moved it).
    auto t = from_micros(1'800'000'000'000'000);
    for (size_t i = 0; i < cluster_->size() && !log_.failed(); ++i) {
      focus(i);
      boot(t);
      if (cur().world)
        t = w().clock().now();
    }
    size_t calls_left = opts_.calls;
    time_point drain_began{};
    while (steps_ < opts_.max_steps && !log_.failed() && !over_ && cluster_->all_up()) {
      ++steps_;
      if (cluster_->size() > 1) {
        auto i = rng_() % cluster_->size();
        log_.choose(i);
        focus(i);
      }
      step(calls_left, drain_began);
      cluster_->post();
      if (cluster_->size() > 1 && !log_.failed())
        check_owners(log_, *cluster_, *store_);
    }
    if (cluster_->all_up() && !log_.failed() && steps_ >= opts_.max_steps)
      log_.check(false,
                 "the run did not settle within " + std::to_string(opts_.max_steps) + " steps");
    for (auto& p : cluster_->procs)
      if (p.world && p.outside->drain.done(*p.world))
        p.outside->drain.check_written(log_, *store_);
    if (!log_.failed()) {
      store_->check_settled();
      client_->check_acked();
      client_->check_schedules();
    }
    if (log_.failed()) {
      // Its actors broke an invariant: running them to their end could
      // crash before the run reports. Left as they are.
      for (auto& p : cluster_->procs)
        (void)p.world.release();
    }
    return report();
  }

private:
  sim_process& cur() {
    return cluster_->procs[cur_];
  }

  /// The current process's name in the store (empty when it is alone).
  std::string process_key() const {
    return cluster_->size() > 1 ? "p" + std::to_string(cur_) : std::string{};
  }

  sim_world& w() {
    return *cur().world;
  }

  sim_world_state& outside() {
    return *cur().outside;
  }

  /// Process `i` acts next: the store serves it, and its drain decides
  /// what the client may be told.
  void focus(size_t i) {
    cur_ = i;
    if (cluster_->size() > 1)
      log_.who = "p" + std::to_string(i) + " ";
    store_->acting(cur().world ? w().lease_owner() : std::string{}, process_key());
    bool draining = outside().drain.on();
    store_->drained = draining;
    client_->drained = draining;
  }

  /// One step of the current process.
  void step(size_t& calls_left, time_point& drain_began) {
    if (drain_step())
      return;
    if (calls_left > 0) {
      if (rng_() % 12 == 0) {
        client_->random_call(w());
        --calls_left;
        return;
      }
    } else if (drain_began == time_point{}) {
      drain_began = w().clock().now();
    }
    if (swarm_.restarts && restarts_ < 3 * cluster_->size() && rng_() % 2000 == 0) {
      restart();
      return;
    }
    if (swarm_.leases && stalls_ < 3 && rng_() % 2500 == 0) {
      stall();
      return;
    }
    if (!act(calls_left == 0, drain_began))
      over_ = true;
  }

  /// Starts the current process at `now` (again, if the store cannot be
  /// read yet).
  void boot(time_point now) {
    auto& p = cur();
    for (int tries = 0; tries < 20; ++tries) {
      p.world =
        std::make_unique<sim_world>(p.outside, store_, swarm_.cfg, now, ++node_, swarm_.workers);
      if (!p.world->launch_error())
        return;
      log_.note("launch failed: the store could not be read");
      p.world.reset();
      now += 100ms;
      cluster_->advance(100ms); // the others' time moves on with it
    }
    log_.check(false, "the engine could not be launched in 20 tries");
  }

  /// The current process crashes (a drained one stops) and starts again
  /// a little later; the others go on.
  void restart() {
    auto now = w().clock().now();
    log_.note("restart");
    log_.choose(0xdead);
    bodies_ += outside().bodies;
    outside().bodies = 0;
    cur().world.reset();
    workers_->restarted(cur_);
    cur().inbox.clear();
    cur().listening = false;
    cur().reconnected = false;
    outside().drain.reset();
    store_->drained = false;
    client_->drained = false;
    store_->restarted(process_key());
    watchdog_.restarted();
    client_->check_acked();
    client_->check_schedules();
    restarts_ += 1;
    auto gap = std::chrono::milliseconds(rng_() % 3000);
    cluster_->advance(gap);
    boot(now + gap);
    if (cur().world)
      store_->acting(w().lease_owner(), process_key());
  }

  /// Drains the process now and then (on seeds that do), checks the drain
  /// as the world moves, and drops the process (a restart) once the drain
  /// is over; returns whether it did something instead of a step.
  bool drain_step() {
    auto& drain = outside().drain;
    if (!drain.on()) {
      if (!swarm_.drain || drains_ >= 2 * cluster_->size() || rng_() % 1500 != 0)
        return false;
      log_.note("drain");
      log_.choose(0xd7a1);
      drain.begin(w(), *store_);
      client_->drained = true;
      drains_ += 1;
      drain_began_ = steps_;
      return true;
    }
    drain.check_gate(log_, w());
    if (drain.done(w())) {
      log_.note("drained: the process stops");
      drain.check_written(log_, *store_);
      drained_ += 1;
      // As `stepwise serve` on SIGTERM: its lease ends, and the others
      // claim its operations at once (told by a notification).
      if (swarm_.leases)
        (void)store_->leave();
      restart();
      return true;
    }
    // Running attempts end (a hung call by its step's timeout): a drain
    // that never ends keeps an attempt running for ever.
    log_.check(steps_ - drain_began_ < 50000, "the drain did not end within 50000 steps");
    return false;
  }

  /// The process stalls past its lease (a long pause of the machine), and
  /// another process claims its operations meanwhile (alone: one that
  /// then dies at once).
  void stall() {
    auto ttl = swarm_.cfg.lease_ttl;
    auto d = ttl + duration{static_cast<int64_t>(rng_() % static_cast<uint64_t>(ttl.count()))};
    log_.note("the process stalls for " + std::to_string(d.count() / 1000) + " ms");
    log_.choose(0x57a1);
    stalls_ += 1;
    cluster_->advance(d);
    if (cluster_->size() == 1) {
      store_->another_process_claims();
      return;
    }
    auto me = cur_;
    for (size_t i = 0; i < cluster_->size(); ++i)
      if (i != me) {
        focus(i);
        log_.note("process " + std::to_string(i) + " claims orphans");
        w().writer().claim_once();
      }
    focus(me);
  }

  /// Does one thing the world can do; returns false when the run is over.
  bool act(bool draining, time_point drain_began) {
    auto& p = cur();
    auto began = p.world->stats().steps_started.load();
    bool more = act_once(draining, drain_began);
    if (p.world && p.world->stats().steps_started.load() != began)
      check_lease(log_, *p.world, *store_);
    return more;
  }

  bool act_once(bool draining, time_point drain_began) {
    if (cluster_->act(cur_, draining, swarm_.hang_calls))
      return true;
    // Time moves only once every process is quiet.
    if (cluster_->size() > 1 && !cluster_->quiet())
      return true;
    return idle(draining, drain_began);
  }

  /// Nothing to do but wait: checks what must hold when quiet, then moves
  /// time or, when draining, asks for what ends the operations left.
  bool idle(bool draining, time_point drain_began) {
    auto& w = this->w();
    for (auto& p : cluster_->procs) {
      check_parked(log_, *p.world, std::min(swarm_.cfg.wake_lead, swarm_.cfg.passivate_after / 2));
      check_waits(log_, *p.world);
    }
    watchdog_.check(log_, w, *store_);
    if (!draining) {
      cluster_->tick(true);
      return true;
    }
    bool all_ended = true;
    std::string left;
    for (auto& id : store_->ids()) {
      auto op = store_->peek(id);
      if (op && !is_terminal(op->state)) {
        all_ended = false;
        left += " " + id + " (" + std::string{to_string(op->state)} + ")";
      }
    }
    // Schedules would start operations for ever: paused first.
    bool firing = idle_ticks_ % 10 == 0 && client_->pause_schedules(w);
    bool outside_quiet = true;
    for (auto& p : cluster_->procs)
      outside_quiet = outside_quiet && p.outside->calls.empty() && p.outside->watches.empty();
    if (all_ended && !firing && outside_quiet)
      return false;
    if (w.clock().now() - drain_began > std::chrono::hours(2)) {
      log_.check(false, "operations never finished:" + left);
      return false;
    }
    if (++idle_ticks_ % 10 == 0)
      client_->nudge(w);
    cluster_->tick(true);
    return true;
  }

  sim_report report() {
    sim_report out;
    out.seed = opts_.seed;
    out.violations = log_.violations;
    out.trace = log_.trace;
    out.path = log_.path;
    out.checks = log_.checks;
    out.steps = steps_;
    out.deliveries = cluster_->deliveries;
    out.restarts = restarts_;
    out.drains = drains_;
    out.drained = drained_;
    out.operations = store_->ids().size();
    out.removed = store_->removals();
    out.commands_stored = store_->commands_stored();
    out.commands_carried = store_->commands_carried();
    out.repairs = store_->repairs();
    out.answers = client_->answered();
    out.bodies = bodies_;
    for (auto& p : cluster_->procs)
      out.bodies += p.outside->bodies;
    out.processes = cluster_->size();
    out.notices = cluster_->counts;
    out.tasks_handed = workers_->handed;
    out.task_answers = workers_->accepted;
    out.task_answers_refused = workers_->refused;
    out.settings = swarm_.describe();
    return out;
  }

  sim_options opts_;
  sim_log log_;
  std::mt19937_64 rng_;
  swarm swarm_;
  std::shared_ptr<sim_store> store_;
  std::unique_ptr<sim_client> client_;
  std::unique_ptr<sim_cluster> cluster_;
  std::unique_ptr<sim_workers> workers_;
  /// The process acting now.
  size_t cur_ = 0;
  /// The run is over (every operation ended, nothing left to do).
  bool over_ = false;
  /// Step bodies run by processes since stopped.
  uint64_t bodies_ = 0;
  children_watchdog watchdog_;
  uint32_t node_ = 0;
  uint64_t steps_ = 0;
  uint64_t restarts_ = 0;
  uint64_t stalls_ = 0;
  uint64_t idle_ticks_ = 0;
  uint64_t drains_ = 0;
  uint64_t drained_ = 0;
  /// The step at which the drain of the moment began.
  uint64_t drain_began_ = 0;
};

} // namespace

sim_report simulate(const sim_options& opts) {
  run r{opts};
  return r.go();
}

} // namespace stepwise::sim
