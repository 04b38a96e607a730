#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include "actors/dispatcher.hpp"
#include "actors/launch.hpp"
#include "actors/lease_keeper.hpp"
#include "actors/messages.hpp"
#include "actors/virtual_clock.hpp"
#include "actors/worker_pool.hpp"
#include "tests/simulation/sim_workflows.hpp"

namespace stepwise::sim {

/// One process of the simulation: an actor system on CAF's test
/// coordinator (nothing runs until the simulation picks it), the engine
/// launched by hand (`drive::by_hand`) on the shared store, a virtual
/// clock, a client actor that makes requests, a subscriber that checks the
/// order of the events it gets, and the workers' jobs in progress.
/// Destroying it is a crash: nothing it had in memory reaches the store.
class sim_world {
public:
  /// Launches a process at `now`. `workers` is how many jobs may be in
  /// progress at once (the pool's threads).
  sim_world(std::shared_ptr<sim_world_state> outside, std::shared_ptr<sim_store> store,
            engine_config cfg, time_point now, uint32_t node, size_t workers);

  ~sim_world();

  sim_world(const sim_world&) = delete;
  sim_world& operator=(const sim_world&) = delete;

  /// Returns why the launch failed (the store could not be read), or none.
  const caf::error& launch_error() const {
    return launch_error_;
  }

  caf::scheduler::test_coordinator& sched() {
    return *sched_;
  }

  virtual_clock& clock() {
    return *clk_;
  }

  commit_writer& writer() {
    return *parts_.rt->writer;
  }

  worker_pool& pool() {
    return *parts_.rt->step_pool;
  }

  /// The jobs workers have taken and not finished.
  std::vector<worker_pool::job>& running() {
    return running_;
  }

  size_t workers() const {
    return workers_;
  }

  /// Drains the process as `engine::drain` does.
  void drain() {
    parts_.rt->draining = true;
  }

  /// Returns this process's owner id on a store that keeps leases, or empty.
  std::string lease_owner() const {
    return parts_.rt && parts_.rt->lease ? parts_.rt->lease->owner() : std::string{};
  }

  /// Hands `got` to the process's notification router, as its listening
  /// thread would (`first`: its first wait). Nothing without leases.
  void hear(const notices& got, bool first);

  /// Returns the engine's counters (attempts begun, attempts running).
  const metrics& stats() const {
    return parts_.rt->stats;
  }

  /// Returns the dispatcher's state (for the invariants).
  dispatcher_state& dispatcher();

  const internal_dispatcher_actor& dispatcher_handle() const {
    return parts_.dispatcher;
  }

  /// Delivers the next message of the job at `index` of the coordinator's
  /// queue; returns what it was, in words, when `say` is set.
  std::string deliver(size_t index, bool say);

  /// Moves both clocks (the engine's and CAF's) forward by `d`.
  void advance(duration d);

  /// Returns the schedule keeper.
  schedules_actor keeper() const {
    return caf::actor_cast<schedules_actor>(parts_.rt->schedules);
  }

  /// A client's request: made by the client actor, to the dispatcher.
  using client_job = std::function<void(bridge_actor::pointer, const dispatcher_actor&)>;

  /// Has the client actor run `job`.
  void ask(client_job job);

  /// A worker's request: made by the client actor, to the task broker.
  using worker_job = std::function<void(bridge_actor::pointer, const tasks_actor&)>;

  /// Has the client actor run `job`.
  void ask_tasks(worker_job job);

  /// Names this process (each start gets a new number).
  uint32_t node() const {
    return node_;
  }

  /// Returns whether nothing is left to do but wait for time: no message,
  /// no worker job, nothing to write or admit.
  bool quiet();

private:
  std::shared_ptr<sim_world_state> outside_;
  std::shared_ptr<sim_store> store_;
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
  std::shared_ptr<virtual_clock> clk_;
  launched parts_;
  caf::error launch_error_;
  bridge_actor client_;
  event_listener subscriber_;
  watcher_actor watcher_;
  /// Passes compensations' task offers to the task broker, which is
  /// spawned after the workflows are made.
  caf::actor relay_;
  uint32_t node_;
  std::vector<worker_pool::job> running_;
  size_t workers_;
};

} // namespace stepwise::sim
