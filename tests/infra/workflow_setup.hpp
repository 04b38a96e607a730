#pragma once

#include <memory>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "infra/sim_driver.hpp"
#include "workflows/infrastructure.hpp"
#include "tests/actors/harness.hpp"
#include "tests/infra/poll_log.hpp"

// The built-in infrastructure workflows on the simulated cloud, a memory
// store and a virtual clock, for the workflow tests.
namespace stepwise::test {

struct workflow_setup {
  std::shared_ptr<virtual_clock> clk =
    std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
  std::shared_ptr<memory_store> st = std::make_shared<memory_store>();
  std::shared_ptr<infra::sim_driver> drv;
  std::shared_ptr<poll_log> log;
  workflows::infrastructure_deps deps;
  std::unique_ptr<harness> h;

  explicit workflow_setup(workflows::cleanup_fn cleanup = nullptr,
                          std::vector<workflows::provisioning_step> added = {});

  /// Stops the engine and launches another on the same store, clock and
  /// simulated cloud (which, like a real one, outlives the process).
  void restart();

  /// Runs operation `id` to its end, moving the clock to each timer and
  /// waiting for the engine or the monitor to act on it.
  operation drive(const std::string& id);

  /// Returns the events of `id` of `type` seen so far.
  std::vector<event> of(const std::string& id, event_type type) const;
};

/// A location named dc1 whose properties hold a password.
boost::json::object location_json();

/// An input of `provision_runtime` for runtime rt1 in dc1.
boost::json::object provision_input(std::string tpl = "outputs.ip: 10.1.1.1");

infra::deployment_location dc1();

/// Returns the infrastructure id stored under `key` of `op`'s data.
std::string infra_id(const operation& op, const char* key);

} // namespace stepwise::test
