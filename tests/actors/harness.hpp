#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <boost/json/object.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/messages.hpp"
#include "actors/virtual_clock.hpp"
#include "engine/engine.hpp"
#include "storage/memory_store.hpp"

namespace stepwise::test {

/// Returns a registry holding `wf`; fails the test if it is invalid.
registry one(workflow wf);

/// Returns a step that records its attempt in the data under its name and
/// completes, counting its runs in `runs` when given.
step_def ok(std::string name, std::atomic<int>* runs = nullptr);

/// Returns a step whose first attempt retries after 30 s and whose second
/// completes.
step_def retries_once(std::string name);

/// The input of a keyed test operation: {"name": name, "tag": tag}.
boost::json::object keyed_input(const std::string& name, const std::string& tag);

/// Returns what the store holds of operation `id` that could carry a value
/// (input, data, errors, signals, and the text of its events), to search
/// for one that must not be there.
std::string stored_text(memory_store& st, const std::string& id);

/// A CAF system, a memory store, a virtual clock and an engine on them.
/// Time moves only through `clk->advance`; waits for events are bounded in
/// real time but never sleep.
struct harness {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::shared_ptr<virtual_clock> clk;
  std::shared_ptr<memory_store> store;
  engine eng;
  std::unique_ptr<caf::scoped_actor> events;
  std::vector<event> seen;

  /// `clock`: share one virtual clock between harnesses (a restart) or with
  /// components built before the engine (a driver); a new one when null.
  explicit harness(registry reg, std::shared_ptr<memory_store> st = nullptr, engine_config ec = {},
                   std::shared_ptr<virtual_clock> clock = nullptr);

  /// Builds the workflows in the harness's actor system: for workflows
  /// whose steps need actors of their own (a monitor, a step actor).
  using registry_maker =
    std::function<registry(caf::actor_system&, std::shared_ptr<virtual_clock>)>;
  explicit harness(registry_maker make, std::shared_ptr<memory_store> st = nullptr,
                   engine_config ec = {}, std::shared_ptr<virtual_clock> clock = nullptr);

  ~harness();

  /// Starts `workflow` with `input`; fails the test on an error.
  std::string start(const std::string& workflow, boost::json::object input = {},
                    std::string key = {});

  /// Waits (at most 10 s of real time) until an event matching `pred` was
  /// committed; returns false if none came.
  bool await(const std::function<bool(const event&)>& pred);

  /// Takes the events committed so far into `seen`, waiting at most `d` of
  /// real time for a first batch.
  void pump(std::chrono::milliseconds d);

  /// Starts `workflow` with a deadline `within` from the clock's now;
  /// fails the test on an error.
  std::string start_with_deadline(const std::string& workflow, duration within);

  /// Waits (at most 10 s of real time) until `pred` holds; returns
  /// whether it did. For what no event tells (the engine's gauges).
  bool eventually(const std::function<bool()>& pred);

  /// Waits for event `type` of operation `id` (and step, when given).
  bool await(const std::string& id, event_type type, const std::string& step = {});

  /// Waits until operation `id` had `n` events of `type` in all.
  bool await_count(const std::string& id, event_type type, size_t n);

  /// Returns how many events of `type` operation `id` has seen.
  size_t count(const std::string& id, event_type type) const;

  /// Waits until the operation is terminal and returns it.
  operation finish(const std::string& id);
};

} // namespace stepwise::test
