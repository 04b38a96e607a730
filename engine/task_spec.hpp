#pragma once

#include <optional>
#include <string>

#include "engine/time.hpp"

namespace stepwise {

/// What a task step asks of the workers that poll its queue (see
/// engine/task_requests.hpp). The step's wait timeout (`with_wait_timeout`)
/// bounds an attempt from its start to its close; these two bound parts of
/// it. Each timeout ends the attempt, and the step's retry policy decides
/// what comes next.
struct task_spec {
  /// The queue workers poll for it.
  std::string queue;
  /// No worker took the task within this long after it became ready.
  std::optional<duration> start_timeout;
  /// The worker that took it sent no heartbeat (or answer) for this long.
  std::optional<duration> heartbeat_timeout;
};

} // namespace stepwise
