#pragma once

#include <memory>
#include <optional>
#include <random>
#include <string>

#include "engine/schedule.hpp"
#include "tests/simulation/sim_log.hpp"
#include "tests/simulation/sim_store.hpp"
#include "tests/simulation/sim_workflows.hpp"
#include "tests/simulation/sim_world.hpp"

namespace stepwise::sim {

/// One process of the simulation driven by a script instead of a seed:
/// every message is delivered in the order sent (`deliver`), and the test
/// says when a worker runs a job, when the writer commits and when time
/// moves. For regression tests that force one interleaving, and check the
/// simulation's invariants on the way.
class scenario {
public:
  explicit scenario(engine_config cfg = {});
  ~scenario();

  sim_log log;

  /// Delivers every queued message, in the order sent.
  void deliver();

  /// Delivers queued messages one at a time, in the order sent, until one
  /// whose description holds `receiver` and `words` was delivered. Returns
  /// false when none was.
  bool deliver_through(const std::string& receiver, const std::string& words);

  /// Writes until nothing is left to write or admit, delivering after each.
  void commit();

  /// Delivers and commits until both are done; worker jobs are left
  /// waiting, but asynchronous calls that are ended are delivered.
  void settle();

  /// Delivers and commits (writes, admission rounds) until nothing is left
  /// but the messages whose words hold `held`.
  void settle_but(const std::string& held);

  /// The invariants broken so far, one a line.
  std::string broken() const;

  /// A worker takes the next job (it runs when `run_job` says so). Returns
  /// false when no job waits.
  bool take_job();

  /// The worker runs the job it took first.
  void run_job();

  /// Takes and runs jobs until none is left, settling after each.
  void run_jobs();

  /// Moves the clocks and delivers what came due (no commit).
  void advance(duration d);

  /// The watcher reports the first task it follows as settled (its planned
  /// outcome); the report is delivered with the next messages. Returns
  /// false when it follows none.
  bool report_watch();

  /// Requests of a client. Each is sent at once; its answer (the
  /// operation it shows) comes with the deliveries that follow (`answer`),
  /// an error in `last_error`. `start` settles and returns the answer.
  std::optional<operation> start(const std::string& workflow, boost::json::object input = {});
  void command(const std::string& id, stepwise::command cmd);
  void signal(const std::string& id, const std::string& name, std::string signal_id = {});
  void get(const std::string& id);

  /// The answer to the last request, if it came and was no error.
  const std::optional<operation>& answer() const {
    return answer_;
  }

  std::string last_error;

  /// The operation as stored.
  std::optional<operation> stored(const std::string& id);

  sim_world& world() {
    return *world_;
  }

  std::shared_ptr<sim_world_state> outside;
  std::shared_ptr<sim_store> store;

private:
  /// Delivers the first queued message; returns what it was (`say`).
  std::string deliver_one(bool say);

  template <class T, class... Ts>
  void ask(std::tuple<Ts...> msg);

  std::mt19937_64 rng_{1};
  std::unique_ptr<sim_world> world_;
  std::vector<worker_pool::job> taken_;
  std::optional<operation> answer_;
};

/// A schedule `id` that starts the simulation's `sim.steps` every `period`.
schedule periodic_steps(std::string id, duration period);

} // namespace stepwise::sim
