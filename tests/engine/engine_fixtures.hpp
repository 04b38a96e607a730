#pragma once

#include <string>

#include "engine/time.hpp"
#include "engine/workflow.hpp"

// What the engine's unit tests share: a fixed instant and a step that
// does nothing.
namespace stepwise::test {

/// A fixed instant (2027-01-15) the tests count from.
inline const time_point t0 = from_micros(1'800'000'000'000'000);

/// A step named `name` that completes at once.
inline step_def noop(std::string name) {
  return make_step(std::move(name), [](step_context&) { return done(); });
}

} // namespace stepwise::test
