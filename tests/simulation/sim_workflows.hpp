#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <boost/json/object.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "engine/async_call.hpp"
#include "engine/registry.hpp"
#include "engine/wait.hpp"
#include "tests/simulation/sim_drain.hpp"
#include "tests/simulation/sim_log.hpp"
#include "tests/simulation/sim_store.hpp"

namespace stepwise::sim {

/// The outside world of the simulated workflows: the asynchronous calls in
/// flight (a driver whose calls end in any order), and what step bodies
/// check when they run.
struct sim_world_state {
  sim_log& log;
  sim_store& store;
  /// Calls started by asynchronous steps and not yet ended: the simulation
  /// ends them, in an order it picks.
  std::vector<async_call> calls;
  /// Tasks the watcher follows (one per operation and attempt): the
  /// simulation reports them settled, in an order it picks.
  std::vector<watch_request> watches;
  /// Step bodies run so far (all kinds).
  uint64_t bodies = 0;
  /// The drain of the process of the moment, and the attempts it finished.
  drain_watch drain;

  sim_world_state(sim_log& l, sim_store& s) : log(l), store(s) {
    // nop
  }
};

/// The workflows an operation of the simulation runs, by name.
extern const std::vector<std::string> sim_workflow_names;

/// Returns the signals a workflow's wait steps take (others are stored
/// only).
std::vector<std::string> signals_of(const std::string& workflow);

/// Returns whether `workflow` takes part in admission (a key or a limit).
bool takes_part(const std::string& workflow);

/// Returns the limits of the simulation's workflows.
admission_limits sim_limits();

/// Returns a random input for `workflow`: each step's outcome per attempt
/// (done, retry after a delay, fail), a serialization key where it has one.
boost::json::object random_input(const std::string& workflow, std::mt19937_64& rng);

/// Returns the outcome planned for attempt `attempt` of `step` in `input`.
outcome planned(const boost::json::object& input, const std::string& step, int32_t attempt);

/// Returns the simulation's workflows, their bodies bound to `world`, their
/// watched waits to `watcher`, the compensations of task steps offered to
/// `broker` (a relay to the process's task broker).
registry sim_workflows(std::shared_ptr<sim_world_state> world, watcher_actor watcher,
                       caf::actor broker);

/// The watcher of the simulation's watched waits: it keeps what it is asked
/// to follow in `world->watches` (a new attempt replaces an older one) and
/// forgets what it is told to.
watcher_actor::behavior_type sim_watcher(watcher_actor::pointer self,
                                         std::shared_ptr<sim_world_state> world);

/// Returns the report of a watched task: the outcome planned for it.
watch_reply settle(const watch_request& req);

} // namespace stepwise::sim
