#include "workflows/infrastructure_task.hpp"

namespace stepwise::workflows {

workflow infrastructure_task(const infrastructure_deps& deps) {
  workflow wf("infrastructure_task", 1);
  wf.step(10, infra::make_monitor_step("monitor", deps.monitor)).secret(location_secret);
  return wf;
}

} // namespace stepwise::workflows
