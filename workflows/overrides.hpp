#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "engine/step_context.hpp"

namespace stepwise::workflows {

/// Provisioning overrides (a broker's `InputCreator.SetOverrides`) on their
/// way to a driver's create request.

/// Returns the name of the create request property that carries override
/// `key` of `component`: `overrides/<component>/<key>`.
std::string override_property(const std::string& component, const std::string& key);

/// Adds every override to `properties` as `{"value", "type": "string"}`,
/// with `"secret": true` for secret ones (the Infrastructure API's
/// property form; a driver that knows `secret` keeps the value out of its
/// logs). An override replaces an input property of the same name.
void add_override_properties(boost::json::object& properties,
                             const std::vector<override_value>& overrides);

/// Returns why the input's `overrides` is malformed, or nothing. It is
/// optional: `{"<component>": {"<key>": "<value>", ...}, ...}`, values
/// strings. Secret overrides cannot come from the input (which is stored):
/// they come from steps.
std::optional<std::string> check_input_overrides(const boost::json::object& input);

/// Returns the input's `overrides`, none secret (see
/// check_input_overrides), by component, then key.
std::vector<override_value> input_overrides(const boost::json::object& input);

} // namespace stepwise::workflows
