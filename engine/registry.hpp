#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/expected.hpp>

#include "engine/workflow.hpp"

namespace stepwise {

/// All workflow definitions the engine knows, by name and version: those
/// built in at start-up, and those defined as data
/// (engine/workflow_json.hpp), added and removed while the engine runs.
/// Safe to share between threads: a read takes the current set of
/// definitions, which a change replaces whole.
class registry {
public:
  registry() = default;
  registry(const registry& other);
  registry(registry&&) = default;
  registry& operator=(registry&&) = default;

  /// Validates `wf` and adds it. Fails on an invalid
  /// definition or a name/version registered twice.
  [[nodiscard]] caf::expected<void> add(workflow wf);

  /// Returns the definition, the newest version when `version` is empty.
  workflow_ptr find(const std::string& name, std::optional<int32_t> version = std::nullopt) const;

  /// Returns the registered versions of workflow `name`, ascending.
  std::vector<int32_t> versions(const std::string& name) const;

  /// Returns every definition, by name then version.
  std::vector<workflow_ptr> all() const;

  /// Removes every version of workflow `name`; returns how many.
  size_t remove(const std::string& name);

private:
  using map_type = std::map<std::pair<std::string, int32_t>, workflow_ptr>;

  std::shared_ptr<const map_type> current() const;

  std::shared_ptr<const map_type> defs_ = std::make_shared<const map_type>();
  /// Serializes changes (readers never wait for it).
  std::unique_ptr<std::mutex> change_ = std::make_unique<std::mutex>();
};

} // namespace stepwise
