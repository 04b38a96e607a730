#pragma once

#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <caf/message.hpp>

#include "engine/commands.hpp"
#include "engine/operation.hpp"
#include "tests/simulation/sim_log.hpp"
#include "tests/simulation/sim_store.hpp"
#include "tests/simulation/sim_world.hpp"

namespace stepwise::sim {

/// The simulated clients: a random stream of requests (start, get, cancel,
/// retry, pause, resume, signal, list, events; with and without
/// idempotency keys and signal ids; on live, queued, waiting, paused and
/// ended operations, and on unknown ids), and what their answers promise:
/// each answer matches a state the store held, every acknowledged request
/// is in the store, an idempotency key gives one operation.
class sim_client {
public:
  sim_client(sim_log& log, std::mt19937_64& rng, sim_store& store, bool store_faults);

  /// The process drains: a start sent from now on must be refused
  /// (`shutting_down`), and create nothing.
  bool drained = false;
  /// The store keeps leases: a process that lost its lease refuses what it
  /// was asked as stale (another process drives the operation now).
  bool leases = false;
  /// Several processes share the store: requests to two of them may be
  /// carried out in either order until both are answered.
  bool several_processes = false;

  /// Whether requests sent one after another may be carried out in either
  /// order until answered: on several processes, or on one whose change
  /// met its lost lease and is made again behind those that came after it
  /// (the schedule keeper's retry on the newest revision). Either order
  /// is one a client could see, since neither was answered.
  bool unordered() const {
    return several_processes || leases;
  }

  /// Sends one random request through `world`.
  void random_call(sim_world& world);

  /// Sends what moves on the operations that are not terminal yet (resume
  /// the paused, signal the waiting, cancel what waits for its
  /// admission); returns whether it sent anything.
  bool nudge(sim_world& world);

  /// Checks that every acknowledged request is in the store (after a
  /// restart, at the end).
  void check_acked();

  /// A random request about schedules (create, replace, get, list,
  /// delete, pause, resume, trigger), on a few ids.
  void schedule_call(sim_world& world);

  /// Checks that every acknowledged schedule write is in the store.
  void check_schedules();

  /// Pauses every schedule (so that the run can drain); returns whether
  /// one was not paused yet.
  bool pause_schedules(sim_world& world);

  /// Returns how many requests were answered.
  size_t answered() const {
    return answered_;
  }

private:
  struct known_op {
    std::string workflow;
    /// The newest revision an answer showed.
    int64_t acked = 0;
    /// Signal ids whose signal an answer acknowledged as recorded (the
    /// operation it showed has it).
    std::set<std::string> signals;
    /// Signal ids acknowledged as stored for the process that drives the
    /// operation, not yet carried out (the answer's operation lacks it):
    /// recorded in the end, unless the operation ended first.
    std::set<std::string> stored_signals;
  };

  /// Sends the request `msg` (a tuple of its parts) through the client actor.
  /// `about` names the operation the request is about, if any: a purge
  /// may remove it (ended) before the request reaches it, and the
  /// request then finds nothing.
  template <class T, class... Ts>
  void ask(sim_world& world, std::tuple<Ts...> msg, std::string what,
           std::function<void(T&)> on_answer, std::set<uint8_t> allowed, std::string about = {});

  /// The same, to the schedule keeper.
  template <class T, class... Ts>
  void ask_keeper(sim_world& world, std::tuple<Ts...> msg, std::string what,
                  std::function<void(T&)> on_answer, std::set<uint8_t> allowed,
                  std::function<void()> answered = {});

  /// The same, to the actor `pick(dispatcher)` returns.
  template <class T, class Pick, class... Ts>
  void ask_via(sim_world& world, Pick pick, std::tuple<Ts...> msg, std::string what,
               std::function<void(T&)> on_answer, std::set<uint8_t> allowed, std::string about = {},
               std::function<void()> answered = {});

  void start(sim_world& world);
  void command_call(sim_world& world, const std::string& id);
  /// Fills `req` with a retry that patches the input and/or names a step
  /// to run again from, or (`skip`) a skip of one of the operation's steps.
  void repair_request(const std::string& id, bool skip, command_request& req);
  void signal_call(sim_world& world, const std::string& id, std::string name);

  /// Returns a new `by` for a request about `about` (`start`, `op ID`,
  /// `schedule ID`), told to the store, which checks the events that
  /// name it.
  std::string client_by(std::string about) {
    auto by = "client:" + std::to_string(++bys_);
    store_.note_request(by, std::move(about));
    return by;
  }

  /// Checks an operation in an answer against the store's history.
  void seen(const operation& op, const std::string& what);

  /// Returns a known id (or, now and then, an unknown one).
  std::string target();

  sim_log& log_;
  std::mt19937_64& rng_;
  sim_store& store_;
  bool store_faults_;
  std::map<std::string, known_op> ops_;
  std::vector<std::string> ids_;
  /// Idempotency key -> (input it was first sent with, operation).
  std::map<std::string, std::pair<std::string, std::string>> keys_;
  size_t answered_ = 0;
  /// Timed waits sent: picks the next one's time.
  uint64_t waits_ = 0;
  /// Per schedule id: the newest revision shown by the answer to a
  /// request sent after the last delete (0: none), and that delete's
  /// number among the requests.
  struct known_schedule {
    int64_t acked = 0;
    uint64_t deleted_at = 0;
  };
  std::map<std::string, known_schedule> schedules_;
  uint64_t schedule_calls_ = 0;
  /// Requests given a `by` of their own (`client_by`).
  uint64_t bys_ = 0;
  /// Per schedule id: deletes sent and not answered yet (with several
  /// processes, such a delete may undo any answer until its own).
  std::map<std::string, int> deleting_;
};

} // namespace stepwise::sim
