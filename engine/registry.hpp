#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/expected.hpp>

#include "engine/workflow.hpp"

namespace stepwise {

/// All workflow definitions the engine knows, by name and version. Filled
/// at start-up, read-only afterwards (safe to share between threads then).
class registry {
public:
  /// Validates `wf` and adds it. Fails on an invalid
  /// definition or a name/version registered twice.
  [[nodiscard]] caf::expected<void> add(workflow wf);

  /// Returns the definition, the newest version when `version` is empty.
  workflow_ptr find(const std::string& name, std::optional<int32_t> version = std::nullopt) const;

  /// Returns the registered versions of workflow `name`, ascending.
  std::vector<int32_t> versions(const std::string& name) const;

  /// Returns every definition, by name then version.
  std::vector<workflow_ptr> all() const;

private:
  std::map<std::pair<std::string, int32_t>, workflow_ptr> defs_;
};

} // namespace stepwise
