#include <string>

#include "engine/progress.hpp"
#include "engine/redact.hpp"

namespace stepwise::progress {

std::vector<event> emitted_events(const operation& op, const workflow& wf,
                                  const std::vector<std::string>& secrets,
                                  std::vector<emitted_event>& emitted, time_point now) {
  bool compensating = op.state == op_state::compensating;
  auto idx = compensating ? compensation_cursor(op, wf) : op.cursor();
  std::vector<event> out;
  out.reserve(emitted.size());
  for (auto& x : emitted) {
    event e;
    e.time = now;
    e.operation_id = op.id;
    e.type = x.type;
    if (idx < op.steps.size()) {
      e.step = op.steps[idx].name;
      e.attempt = compensating ? op.steps[idx].compensation_attempts : op.steps[idx].attempts;
    }
    e.state = std::string{to_string(op.state)};
    e.extra = std::move(x.extra);
    scrub_json(e.extra, secrets);
    out.emplace_back(std::move(e));
  }
  return out;
}

} // namespace stepwise::progress
