#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/expected.hpp>

#include <boost/json.hpp>

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

  /// Computes an operation's serialization key from its input.
  using key_fn = std::function<std::string(const boost::json::object& input)>;

  /// Runs operations one at a time per key: the value at `json_pointer` in
  /// the input (a string as it is, any other value as JSON). Operations of
  /// every workflow with the same key queue behind each other, in creation
  /// order. An input without that value is refused at start.
  workflow& serialize_by(std::string json_pointer);

  /// Runs operations one at a time per key computed by `fn` (an empty key:
  /// none for that operation). `what` names it in errors and listings.
  workflow& serialize_by(key_fn fn, std::string what);

  /// Labels each operation with `label_key`: the value at `json_pointer`
  /// in its input (a string as it is, any other value as JSON; none when
  /// the input has no value there). A start request's own label of that
  /// key wins.
  workflow& label(std::string label_key, std::string json_pointer);

  /// Returns the labels an operation with `input` takes from it.
  [[nodiscard]] std::map<std::string, std::string> labels_of(
    const boost::json::object& input) const;

  /// Returns the declared labels: (key, JSON pointer).
  const std::vector<std::pair<std::string, std::string>>& input_labels() const {
    return labels_;
  }

  /// Lets at most `n` operations of this workflow (any version) be in
  /// progress at once; the rest queue in creation order. The engine's
  /// `engine_config::limits` overrides it.
  workflow& limit(size_t n);

  /// Returns the serialization key of an operation with `input` (empty:
  /// none), or an error naming the workflow and what is missing.
  [[nodiscard]] caf::expected<std::string> key_of(const boost::json::object& input) const;

  /// Returns whether operations have a serialization key.
  bool serialized() const {
    return static_cast<bool>(key_);
  }

  /// Returns how the key is computed (a JSON pointer), or "".
  const std::string& key_source() const {
    return key_what_;
  }

  /// Returns the declared limit (0: none).
  size_t max_in_progress() const {
    return limit_;
  }

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

  /// Returns the JSON a workflow defined as data was made from
  /// (engine/workflow_json.hpp), or null for one built in C++.
  const std::shared_ptr<const boost::json::object>& definition() const {
    return definition_;
  }

  /// Records the JSON the workflow was made from.
  workflow& defined_by(boost::json::object def) {
    definition_ = std::make_shared<const boost::json::object>(std::move(def));
    return *this;
  }

private:
  std::string name_;
  int32_t version_;
  std::vector<step_def> steps_;
  std::vector<std::string> secrets_;
  key_fn key_;
  std::string key_what_;
  size_t limit_ = 0;
  std::vector<std::pair<std::string, std::string>> labels_;
  std::shared_ptr<const boost::json::object> definition_;
};

using workflow_ptr = std::shared_ptr<const workflow>;

} // namespace stepwise
