#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/step.hpp"
#include "tests/simulation/sim_log.hpp"
#include "tests/simulation/sim_store.hpp"

namespace stepwise::sim {

class sim_world;

/// A drain of the process of the moment (`engine::drain`), and what it
/// promises: no attempt begins once it is set (operation_actor's `execute`
/// is the gate, right before `steps_started` counts an attempt), the
/// attempts already running finish and are written, and nothing is
/// created (sim_store::drained, sim_client::drained). Also keeps, from
/// the process's start, the attempts whose bodies finished, which must all
/// be in the store when the drained process is dropped.
class drain_watch {
public:
  bool on() const {
    return on_;
  }

  /// Drains `world` as `engine::drain` does.
  void begin(sim_world& world, sim_store& store);

  /// Checks that no attempt began since the drain.
  void check_gate(sim_log& log, sim_world& world);

  /// A step body starts: once draining, it must be of an attempt that an
  /// operation actor ran when the drain began (or one abandoned, whose
  /// body a worker reached late). Not told by the log: a commit after the
  /// drain may write the `step_started` of an attempt begun before it
  /// (carried, as after a sleep, to the next commit), and may store as
  /// started an attempt that then never runs here (the gate comes after
  /// the commit: the next step after a result, a retry a timer wakes).
  void body(sim_log& log, step_context& ctx);

  /// The body of attempt `attempt` of `step` of operation `id` finished
  /// (a blocking body returned, an asynchronous call ended).
  void finished(sim_store& store, const std::string& id, const std::string& step, int32_t attempt);

  /// Returns whether the drain is over: no attempt runs (or has its result
  /// not yet queued) and the writer flushed everything (the world is quiet).
  bool done(sim_world& world);

  /// Checks that every attempt whose body finished in this process is
  /// written: its step is not stored as running that attempt any more
  /// (unless the operation ended, or was retried or resumed since: its
  /// attempts count afresh).
  void check_written(sim_log& log, sim_store& store);

  /// A new process: nothing drains, nothing has finished.
  void reset();

private:
  struct attempt_id {
    std::string id;
    std::string step;
    int32_t attempt = 0;
    /// The operation's retries and resumes when it finished: attempts
    /// are counted from 1 again after each.
    int64_t budget = 0;
  };

  bool on_ = false;
  /// `steps_started`, and the attempts running ("OP/STEP/ATTEMPT"), when
  /// the drain began.
  uint64_t started_ = 0;
  std::set<std::string> running_;
  std::vector<attempt_id> finished_;
};

} // namespace stepwise::sim
