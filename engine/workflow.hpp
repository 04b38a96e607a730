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

  /// Adds a step with the given weight.
  workflow& step(int32_t weight, step_def s);

  /// Declares a JSON pointer into the input whose value is secret.
  workflow& secret(std::string json_pointer);

  /// Checks the definition and returns the steps in execution order
  /// (stable by weight). Errors name what is wrong.
  [[nodiscard]] caf::expected<void> validate() const;

  /// Orders the steps by weight, keeping registration order for ties.
  void sort_steps();

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
