#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "engine/time.hpp"

namespace stepwise {

/// One version of a workflow defined as data, as stored.
struct stored_definition {
  std::string name;
  int32_t version = 0;
  /// The definition, canonical JSON text (engine/workflow_json.hpp).
  std::string body;
  time_point created_at;
};

/// What a `put_definition` did.
struct definition_put {
  stored_definition def;
  /// False when the newest stored version already had this body.
  bool created = false;
};

/// The workflows defined as data, in the store every process sharing it
/// reads them from.
class definition_store {
public:
  virtual ~definition_store() = default;

  /// Returns every version of every workflow, by name then version.
  [[nodiscard]] virtual caf::expected<std::vector<stored_definition>> load_definitions() = 0;

  /// Stores `body` as the next version of workflow `name`, unless the
  /// newest version has this body (then returns that one). Two processes
  /// putting at once get distinct versions.
  [[nodiscard]] virtual caf::expected<definition_put> put_definition(const std::string& name,
                                                                     const std::string& body) = 0;

  /// Deletes every version of workflow `name` unless an operation of it
  /// has not ended; returns how many versions it deleted, or
  /// `invalid_state` naming such an operation.
  [[nodiscard]] virtual caf::expected<int32_t> delete_definition(const std::string& name) = 0;
};

} // namespace stepwise
