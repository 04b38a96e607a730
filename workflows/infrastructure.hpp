#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "infra/driver.hpp"
#include "infra/monitor.hpp"
#include "engine/operation.hpp"
#include "engine/registry.hpp"
#include "engine/retry_policy.hpp"
#include "engine/step.hpp"
#include "engine/store.hpp"

namespace stepwise::workflows {

/// Reads a stored operation by id, as stored: its secret values sealed
/// (a step opens them with `step_context::open_secrets`). The server wires
/// it to the store. Runs on a step worker, so it may block.
using read_operation_fn =
  std::function<caf::expected<std::optional<operation>>(const std::string& id)>;

/// Returns a page of stored operations (`store::list`). Runs on a step
/// worker, so it may block.
using list_operations_fn = std::function<caf::expected<operation_page>(const list_filter& f)>;

/// Runs one best-effort cleanup task of `deprovision_runtime` (`"release_dns"`,
/// `"remove_monitoring"`); the default records it as done in the data.
using cleanup_fn = std::function<outcome(const std::string& task, step_context& ctx)>;

/// A step a deployment adds to `provision_runtime` (as a broker's
/// `AddStep(weight, step)` does), typically one that fetches a token or a URL
/// from another system and adds it as an override
/// (`ctx.add_override(component, key, value, secret)`). Overrides are never
/// stored: the step is marked `producing_transient`, so it runs again
/// after a restart, and must be safe to run again. Steps weighted below 20
/// run before `create_infrastructure`, whose request carries the overrides.
struct provisioning_step {
  int32_t weight = 15;
  step_def step;
};

/// What the infrastructure workflows run against. Shared by every operation:
/// the driver must be thread-safe (all drivers are).
struct infrastructure_deps {
  std::shared_ptr<infra::driver> driver;
  /// The driver's monitor (`infra::spawn_monitor`): the wait steps hand it
  /// their tasks.
  watcher_actor monitor;
  /// Needed by `deprovision_runtime` only.
  read_operation_fn read_operation;
  /// Needed by `expire_runtimes` only.
  list_operations_fn list_operations;
  /// Bounds the retries of create and delete calls that the driver refuses
  /// for now (temporary error, unreachable location).
  retry_policy calls = default_call_policy();
  cleanup_fn cleanup;
  /// Steps added to `provision_runtime` (see provisioning_step).
  std::vector<provisioning_step> provisioning_steps;
  /// The version `provision_runtime` is registered as. Steps added or
  /// removed make a new definition: give it a new version, and keep the
  /// old one registered while operations started on it run (each keeps
  /// its version; one whose version is gone after a restart fails).
  int32_t provision_version = 1;

  static retry_policy default_call_policy();
};

/// Registers `infrastructure_task`, `provision_runtime`,
/// `deprovision_runtime`, `build_and_launch`, and the service broker's
/// `update_runtime`, `bind_runtime` and `unbind_runtime` (each version 1, but
/// `provision_runtime` as `provision_version`).
[[nodiscard]] caf::expected<void> add_infrastructure_workflows(registry& reg,
                                                               infrastructure_deps deps);

/// The serialization key of provisioning and deprovisioning: the runtime's
/// `name` ("runtime:NAME"), so that a runtime is never deprovisioned while
/// its provisioning still runs. A deprovisioning whose input names no
/// runtime (only `provision_operation_id`) has no key.
std::string runtime_key(const boost::json::object& input);

/// The JSON pointer of deployment location properties (credentials):
/// declared secret by every infrastructure workflow.
inline constexpr const char* location_secret = "/deployment_location/properties";

} // namespace stepwise::workflows
