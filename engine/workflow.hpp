#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "engine/step.hpp"

namespace stepwise {

/// A named, versioned workflow definition, built fluently at start-up:
///
///     workflow("provision_runtime", 3)
///       .step(10, make_step<create_runtime>())
///       .step(20, make_step("wait", fn).with_policy(p))
///       .secret("/credentials/password");
class workflow {
public:
  workflow(std::string name, int32_t version);

  /// Adds a step with the given weight. Steps are kept in execution order
  /// at all times (by weight; ties keep the order they were added in), so
  /// the index of a step, which operations store, never depends on when
  /// the definition was looked at.
  workflow& step(int32_t weight, step_def s);

  /// Declares a JSON pointer into the input whose value is secret.
  workflow& secret(std::string json_pointer);

  /// Checks the definition: names, weights, bodies, timeouts, policies
  /// and secret paths. Errors name the workflow and what is wrong.
  [[nodiscard]] caf::expected<void> validate() const;

  const std::string& name() const {
    return name_;
  }

  int32_t version() const {
    return version_;
  }

  const std::vector<step_def>& steps() const {
    return steps_;
  }

  const std::vector<std::string>& secrets() const {
    return secrets_;
  }

  /// Returns the index of the step named `name`, or -1.
  int32_t index_of(const std::string& name) const;

private:
  std::string name_;
  int32_t version_;
  std::vector<step_def> steps_;
  std::vector<std::string> secrets_;
};

using workflow_ptr = std::shared_ptr<const workflow>;

} // namespace stepwise
