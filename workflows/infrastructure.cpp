#include "workflows/infrastructure.hpp"
#include "workflows/expire_runtimes.hpp"

#include "engine/errc.hpp"
#include "workflows/bind_runtime.hpp"
#include "workflows/build_and_launch.hpp"
#include "workflows/deprovision_runtime.hpp"
#include "workflows/infrastructure_task.hpp"
#include "workflows/provision_runtime.hpp"
#include "workflows/update_runtime.hpp"

namespace stepwise::workflows {

std::string runtime_key(const boost::json::object& input) {
  auto* name = input.if_contains("name");
  if (name == nullptr || !name->is_string() || name->as_string().empty())
    return {};
  return "runtime:" + std::string{name->as_string().c_str()};
}

retry_policy infrastructure_deps::default_call_policy() {
  retry_policy p;
  p.initial_interval = std::chrono::seconds(2);
  p.max_interval = std::chrono::seconds(60);
  p.max_attempts = 10;
  p.jitter = 0.2;
  return p;
}

caf::expected<void> add_infrastructure_workflows(registry& reg, infrastructure_deps deps) {
  if (!deps.driver || !deps.monitor)
    return make_error(errc::invalid_definition,
                      "infrastructure workflows need a driver and its monitor");
  if (!deps.read_operation)
    return make_error(errc::invalid_definition,
                      "deprovision_runtime needs a function that reads operations");
  std::vector<workflow> all{infrastructure_task(deps), provision_runtime(deps),
                            deprovision_runtime(deps), build_and_launch(deps),
                            update_runtime(deps),      bind_runtime(deps),
                            unbind_runtime(deps)};
  // Housekeeping over the store: where the server can list operations.
  if (deps.list_operations)
    all.push_back(expire_runtimes(deps));
  for (auto wf : all)
    if (auto res = reg.add(std::move(wf)); !res)
      return res;
  return {};
}

} // namespace stepwise::workflows
