#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <unordered_map>

#include "engine/clock.hpp"
#include "infra/delayed_calls.hpp"
#include "infra/driver.hpp"
#include "infra/sim_template.hpp"

namespace stepwise::infra {

/// Configures the simulated cloud. Every random choice comes from one RNG
/// seeded with `seed`: the same calls in the same order give the same ids,
/// latencies and failures.
struct sim_config {
  uint64_t seed = 1;
  /// A task's latency is drawn uniformly from [min_latency, max_latency]
  /// unless its template sets `latency_ms`.
  duration min_latency = std::chrono::seconds(2);
  duration max_latency = std::chrono::seconds(10);
  /// Share of tasks, in [0, 1], that end FAILED (INFRASTRUCTURE_ERROR or
  /// INSUFFICIENT_CAPACITY).
  double failure_rate = 0.0;
  /// How long each call takes to answer (a cloud API's round trip). Needs
  /// the `delayed_calls` of the constructor; without them calls answer at
  /// once.
  duration call_latency{0};
  /// Share of calls, in [0, 1], answered with `error_kind::temporary`.
  double temporary_error_rate = 0.0;
  /// The deployment locations that exist; any other name is answered
  /// `unreachable_location`, as the Infrastructure API's contract says.
  std::set<std::string> locations{"default", "dc1"};
  /// Locations that exist but cannot be reached (until `set_reachable`).
  std::set<std::string> unreachable;
};

/// A simulated cloud behind the driver interface, for demos, tests and
/// benchmarks: no I/O, all state in memory (lost with the process), time
/// from the engine's clock (virtual in tests). Thread-safe: one mutex. A
/// call's answer is decided when it is made and delivered `call_latency`
/// later through `delayed_calls` (on a CAF thread), holding no thread.
///
/// Semantics beyond the interface:
/// - `create` with a `requestId` system property seen before answers the
///   ids of that first create (a step retried after a crash creates once).
/// - Infrastructure *exists* once its create task is COMPLETE and is
///   *deleted* once a delete task is COMPLETE; `remove` and `find` treat
///   deleted infrastructure as absent. Calls naming infrastructure in
///   another location than it was created in answer `not_found`.
/// - A `remove` while a delete is in progress answers that delete's ids.
class sim_driver : public driver {
public:
  sim_driver(sim_config cfg, std::shared_ptr<const stepwise::clock> clk,
             std::shared_ptr<delayed_calls> later = nullptr);

  // -- driver methods ---------------------------------------------------------

  void create(const create_request& req, callback<accepted> done, const stop_token& stop) override;

  void get_task(const std::string& infrastructure_id, const std::string& request_id,
                const deployment_location& loc, callback<task> done) override;

  void remove(const std::string& infrastructure_id, const deployment_location& loc,
              callback<accepted> done, const stop_token& stop) override;

  void find(const std::string& template_text, const std::string& template_type,
            const std::string& instance_name, const deployment_location& loc,
            callback<std::optional<found>> done) override;

  // -- controls for tests and demos -------------------------------------------

  /// Makes the next `calls` driver calls fail with `kind`.
  void inject(error_kind kind, int32_t calls);

  /// Makes `location` reachable again, or unreachable.
  void set_reachable(const std::string& location, bool reachable);

  /// Returns whether the infrastructure exists and is not deleted.
  bool exists(const std::string& infrastructure_id) const;

  /// Returns how many distinct creates were accepted.
  size_t creates() const;

  /// Returns the create request that made the infrastructure (properties,
  /// overrides and all, as received: a test checks them), or nothing.
  std::optional<create_request> received_create(const std::string& infrastructure_id) const;

private:
  struct sim_task {
    std::string infrastructure_id;
    time_point due;
    std::optional<failure_details> failure;
  };

  struct sim_infra {
    std::string resource_name;
    std::string location;
    std::string create_request;
    std::string delete_request;
    /// The create as received.
    infra::create_request received;
    boost::json::object outputs;
  };

  // The answers, decided at once.
  result<accepted> do_create(const create_request& req);
  result<task> do_get_task(const std::string& infrastructure_id, const std::string& request_id,
                           const deployment_location& loc);
  result<accepted> do_remove(const std::string& infrastructure_id, const deployment_location& loc);
  result<std::optional<found>> do_find(const std::string& template_text,
                                       const std::string& instance_name,
                                       const deployment_location& loc);

  /// Delivers `res` to `done` after the call latency.
  template <class T>
  void answer(callback<T>& done, result<T> res);

  // Callers hold mtx_.
  std::optional<error> refuse_call();
  std::optional<error> refuse_location(const deployment_location& loc) const;
  std::string fresh_id(const char* prefix);
  time_point draw_due(const std::optional<duration>& latency);
  std::optional<failure_details> draw_failure();
  task_status status_of(const sim_task& t, time_point now) const;
  bool live(const sim_infra& x, time_point now) const;

  sim_config cfg_;
  std::shared_ptr<const stepwise::clock> clock_;
  std::shared_ptr<delayed_calls> later_;
  mutable std::mutex mtx_;
  std::mt19937_64 rng_;
  error_kind injected_kind_ = error_kind::temporary;
  int32_t injected_calls_ = 0;
  std::unordered_map<std::string, sim_infra> infra_;
  std::unordered_map<std::string, sim_task> tasks_;
  /// Accepted creates by their `requestId` system property.
  std::unordered_map<std::string, accepted> by_request_key_;
};

} // namespace stepwise::infra
