#pragma once

#include <stdexcept>
#include <string>

#include "engine/operation.hpp"
#include "engine/time.hpp"
#include "engine/workflow.hpp"

// What the engine's unit tests share: a fixed instant, a step that does
// nothing, a new operation.
namespace stepwise::test {

/// A fixed instant (2027-01-15) the tests count from.
inline const time_point t0 = from_micros(1'800'000'000'000'000);

/// Returns the instant an RFC 3339 text names (the text must be valid).
inline time_point utc(const char* text) {
  auto t = parse_time(text);
  if (!t)
    throw std::invalid_argument{std::string{"not an RFC 3339 time: "} + text};
  return *t;
}

/// A step named `name` that completes at once.
inline step_def noop(std::string name) {
  return make_step(std::move(name), [](step_context&) { return done(); });
}

/// Returns a new operation `op-1` of `wf`: pending, every step pending.
inline operation fresh(const workflow& wf) {
  operation op;
  op.id = "op-1";
  op.workflow = wf.name();
  op.workflow_version = wf.version();
  op.input = std::make_shared<const boost::json::object>();
  for (auto& s : wf.steps())
    op.steps.push_back(step_record{s.name, s.weight, step_state::pending, 0, {}, {}, {}, 0, {}});
  return op;
}

} // namespace stepwise::test
